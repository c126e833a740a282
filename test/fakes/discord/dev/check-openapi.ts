/**
 * Development check, not a test: runs discord.js against the fake through the main flows, then validates every
 * recorded request body and response body against Discord's OpenAPI description.
 *   PATH=/work/main/node_modules/.bin:$PATH node test/fakes/discord/dev/check-openapi.ts [path/to/discord-openapi.json]
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ApplicationCommandOptionType, MessageFlags, type ChatInputCommandInteraction, type TextChannel } from 'discord.js';
import { startFakeDiscord, type RestRequestRecord } from '../index.ts';
import { readyClient } from '../test-client.ts';

type Json = Record<string, unknown>;

const specPath = process.argv[2] ?? '/work/shared/vendor-specs/discord-openapi.json';
const spec = JSON.parse(readFileSync(specPath, 'utf8')) as { paths: Record<string, Record<string, Json>>; components: Json };
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ ...spec, $id: 'openapi' });

function schemaFor(ref: Json | undefined): (((data: unknown) => boolean) & { errors?: unknown }) | null {
  if (!ref) return null;
  const pointer = JSON.stringify(ref).replaceAll('"#/', '"openapi#/');
  return ajv.compile(JSON.parse(pointer));
}

function operation(method: string, path: string): { template: string; op: Json } | null {
  for (const [template, item] of Object.entries(spec.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const op = item[method.toLowerCase()] as Json | undefined;
    if (op && pattern.test(path)) {
      const literal = template.replace(/\{[^}]+\}/g, '');
      const better = Object.keys(spec.paths).find(
        (t) =>
          t !== template &&
          t.replace(/\{[^}]+\}/g, '').length > literal.length &&
          new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path) &&
          spec.paths[t]?.[method.toLowerCase()],
      );
      if (better) return { template: better, op: spec.paths[better]![method.toLowerCase()] as Json };
      return { template, op };
    }
  }
  return null;
}

function resolveRef(node: Json | undefined): Json | undefined {
  let current = node;
  while (current && typeof current.$ref === 'string') {
    const parts = (current.$ref as string).replace('#/', '').split('/');
    current = parts.reduce<Json>((acc, key) => acc[key] as Json, spec as unknown as Json);
  }
  return current;
}

const problems: string[] = [];

/**
 * The description types field-error codes as integers, but Discord's servers and its documented examples send
 * strings such as "BASE_TYPE_MAX_LENGTH"; the fake sends strings, so they are masked before validation.
 */
function withNumericFieldCodes(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(withNumericFieldCodes);
  if (body === null || typeof body !== 'object') return body;
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => [
      key,
      key === '_errors' && Array.isArray(value) ? value.map((e: Json) => ({ ...e, code: 0 })) : withNumericFieldCodes(value),
    ]),
  );
}

/**
 * The description lists DEFAULT (0) as the only message reference type; Discord's documentation and discord.js
 * also have FORWARD (1), which forwards carry, so it is masked too.
 */
function withForwardsAsReplies(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(withForwardsAsReplies);
  if (body === null || typeof body !== 'object') return body;
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => [
      key,
      key === 'message_reference' && (value as Json | null)?.type === 1 ? { ...(value as Json), type: 0 } : withForwardsAsReplies(value),
    ]),
  );
}

function check(record: RestRequestRecord): void {
  const found = operation(record.method, record.path);
  if (!found) {
    problems.push(`${record.method} ${record.path}: no operation in the OpenAPI description`);
    return;
  }
  const label = `${record.method} ${found.template} (${String(found.op.operationId)}) → ${record.status}`;
  const requestContent = (resolveRef(found.op.requestBody as Json)?.content ?? {}) as Record<string, Json>;
  if (record.body !== null && record.status < 300) {
    const schema = schemaFor(requestContent['application/json']?.schema as Json | undefined);
    if (schema && !schema(record.body)) problems.push(`${label}: request body: ${ajv.errorsText(schema.errors as never)}`);
  }
  const responses = found.op.responses as Record<string, Json>;
  const response = resolveRef(responses[String(record.status)] ?? responses[`${String(record.status)[0]}XX`]);
  if (!response) {
    problems.push(`${label}: status not described`);
    return;
  }
  const content = response.content as Record<string, Json> | undefined;
  if (!content) {
    if (record.status !== 204) problems.push(`${label}: described without a body but the fake sent one`);
    return;
  }
  const schema = schemaFor(content['application/json']?.schema as Json | undefined);
  if (schema && !schema(withForwardsAsReplies(withNumericFieldCodes(record.response)))) {
    problems.push(`${label}: response body: ${ajv.errorsText(schema.errors as never, { separator: '\n    ' })}`);
  }
}

const fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
const client = await readyClient(fake);
try {
  await client.application!.fetch();
  await client.guilds.cache.get(fake.guild.id)!.members.fetch(fake.users.alice.id);
  await client.channels.fetch(fake.textChannel.id, { force: true });
  const channel = client.channels.cache.get(fake.textChannel.id) as TextChannel;
  const user = fake.sendMessage({ channelId: channel.id, content: `hello <@${fake.botUser.id}>` });
  const sent = await channel.send({ content: 'hi', allowedMentions: { parse: [] }, embeds: [{ title: 't', description: 'd' }] });
  await sent.edit({ content: 'edited' });
  await (await channel.messages.fetch(user.id as string)).reply('reply');
  await channel.send({
    files: [{ attachment: Buffer.from('OggS'), name: 'v.ogg', duration: 1.5, waveform: 'AAAA' }],
    flags: MessageFlags.IsVoiceMessage,
  });
  await channel.send({ files: [{ attachment: Buffer.from('x'), name: 'x.txt' }] });
  await channel.send('x'.repeat(2001)).catch(() => undefined);
  await channel.sendTyping();
  await channel.messages.fetch({ limit: 10 });
  const original = fake.sendMessage({ channelId: channel.id, content: 'see file', attachments: [{ filename: 'a.txt', bytes: Buffer.from('a') }] });
  const userReply = fake.sendMessage({ channelId: channel.id, content: 'about that', messageReference: { messageId: original.id as string } });
  await channel.messages.fetch({ message: userReply.id as string, force: true });
  const forward = fake.forwardMessage({ channelId: channel.id, source: { channelId: channel.id, messageId: original.id as string } });
  await channel.messages.fetch({ message: forward.id as string, force: true });
  await sent.startThread({ name: 'thread' });
  await sent.react('👀');
  await sent.react('⚠️');
  await sent.reactions.resolve('👀')?.users.remove();
  await channel.threads.create({ name: 'private' });
  await sent.delete();
  await client.application!.commands.set([
    {
      name: 'ask',
      description: 'Ask',
      options: [{ type: ApplicationCommandOptionType.String, name: 'q', description: 'q', required: true }],
    },
  ]);
  await client.guilds.cache.get(fake.guild.id)!.commands.set([{ name: 'local', description: 'Local' }]);
  const flows: ((i: ChatInputCommandInteraction) => Promise<unknown>)[] = [
    async (i) => i.reply({ content: 'direct', withResponse: true }),
    async (i) => {
      await i.deferReply();
      await i.editReply({ content: 'edited', files: [{ attachment: Buffer.from('f'), name: 'f.txt' }] });
      const followUp = await i.followUp({ content: 'more', flags: MessageFlags.Ephemeral });
      await i.webhook.editMessage(followUp, { content: 'more!' });
      await i.fetchReply();
      await i.deleteReply();
    },
  ];
  for (const flow of flows) {
    const done = new Promise<void>((resolve, reject) =>
      client.once('interactionCreate', (i) => {
        if (i.isChatInputCommand()) flow(i).then(() => resolve(), reject);
      }),
    );
    fake.invokeCommand({ name: 'ask', options: { q: 'question' } });
    await done;
  }
  for (let i = 0; i < 7; i++) {
    await fetch(`${fake.restUrl}/v10/channels/${channel.id}/messages`, {
      method: 'POST',
      headers: { Authorization: `Bot ${fake.token}`, 'Content-Type': 'application/json' },
      body: '{"content":"spam"}',
    });
  }
} finally {
  await client.destroy();
  await fake.close();
}

for (const record of fake.requests) check(record);
console.log(`${fake.requests.length} requests checked against ${specPath}`);
for (const problem of problems) console.log(`- ${problem}`);
process.exitCode = problems.length ? 1 : 0;
