import zlib from 'node:zlib';
import type { Client, Message } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeDiscord, type FakeDiscord } from './index.ts';
import { readyClient } from './test-client.ts';

interface Payload {
  op: number;
  d: Record<string, unknown> | null;
  s: number | null;
  t: string | null;
}

/** A bare websocket client to look at the gateway protocol itself. */
function rawGateway(url: string, decode: (data: Buffer) => Payload[] = (data) => [JSON.parse(data.toString())]) {
  const ws = new WebSocket(url);
  const payloads: Payload[] = [];
  let closeCode: number | null = null;
  ws.on('message', (data: Buffer) => payloads.push(...decode(data)));
  ws.on('close', (code) => {
    closeCode = code;
  });
  return { ws, payloads, closeCode: () => closeCode };
}

describe('fake discord: gateway sessions, resume and protocol errors', () => {
  let fake: FakeDiscord;
  let client: Client | undefined;

  beforeEach(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 300 });
  });

  afterEach(async () => {
    await client?.destroy();
    client = undefined;
    await fake.close();
  });

  async function collectMessages(): Promise<{ client: Client; contents: string[] }> {
    client = await readyClient(fake);
    const contents: string[] = [];
    client.on('messageCreate', (m: Message) => contents.push(m.content));
    return { client, contents };
  }

  for (const [label, drop] of [
    ['close code 4000', () => fake.dropGatewayConnections({ code: 4000 })],
    ['an abruptly destroyed socket', () => fake.dropGatewayConnections({ abrupt: true })],
    ['op 7 RECONNECT', () => fake.requestReconnect()],
  ] as const) {
    it(`resumes after ${label} and replays the events missed meanwhile, in order, once`, async () => {
      const { client: c, contents } = await collectMessages();
      fake.sendMessage({ channelId: fake.textChannel.id, content: 'before' });
      await fake.waitFor(() => contents.length === 1, { description: 'first message' });
      const resumed = new Promise<void>((resolve) => c.once('shardResume', () => resolve()));
      drop();
      await fake.waitFor(() => fake.openGatewayConnections === 0 || fake.gatewayConnections.some((x) => x.closedAt), { description: 'disconnect' });
      fake.sendMessage({ channelId: fake.textChannel.id, content: 'while away 1' });
      fake.sendMessage({ channelId: fake.textChannel.id, content: 'while away 2' });
      await resumed;
      fake.sendMessage({ channelId: fake.textChannel.id, content: 'after' });
      await fake.waitFor(() => contents.length === 4, { description: 'all four messages' });
      expect(contents).toEqual(['before', 'while away 1', 'while away 2', 'after']);
      const resume = fake.gatewayReceived.find((p) => p.op === 6);
      expect(resume?.d).toMatchObject({ token: fake.token });
      expect(fake.gatewayConnections.at(-1)?.path).toBe('/gateway/resume');
      expect(fake.gatewayReceived.filter((p) => p.op === 2)).toHaveLength(1);
      const sequences = fake.dispatched().map((e) => e.s);
      expect(sequences).toEqual(sequences.map((_, i) => i + 1));
    });
  }

  it('makes discord.js identify again after a non-resumable INVALID_SESSION', async () => {
    const { contents } = await collectMessages();
    fake.invalidateSessions(false);
    await fake.waitFor(() => fake.gatewayReceived.filter((p) => p.op === 2).length === 2, { timeoutMs: 10_000, description: 'second IDENTIFY' });
    await fake.waitFor(() => fake.dispatched('READY').length === 1 && fake.dispatched('GUILD_CREATE').length === 1, { description: 'new READY' });
    fake.sendMessage({ channelId: fake.textChannel.id, content: 'back' });
    await fake.waitFor(() => contents.includes('back'), { description: 'message on the new session' });
  });

  it('refuses a RESUME of an unknown session with op 9 (d: false)', async () => {
    const raw = rawGateway(`${fake.gatewayUrl}?v=10&encoding=json`);
    await fake.waitFor(() => raw.payloads.length === 1, { description: 'HELLO' });
    expect(raw.payloads[0]).toMatchObject({ op: 10, d: { heartbeat_interval: 300 }, s: null, t: null });
    raw.ws.send(JSON.stringify({ op: 6, d: { token: fake.token, session_id: 'nope', seq: 3 } }));
    await fake.waitFor(() => raw.payloads.length === 2, { description: 'INVALID_SESSION' });
    expect(raw.payloads[1]).toMatchObject({ op: 9, d: false });
    raw.ws.close();
  });

  it('closes with Discord codes: 4004 bad token, 4003 not authenticated, 4002 decode error, 4012 bad version', async () => {
    const cases: [string, (ws: WebSocket) => void, number][] = [
      ['?v=10&encoding=json', (ws) => ws.send(JSON.stringify({ op: 2, d: { token: 'wrong', intents: 1, properties: {} } })), 4004],
      ['?v=10&encoding=json', (ws) => ws.send(JSON.stringify({ op: 3, d: { status: 'online' } })), 4003],
      ['?v=10&encoding=json', (ws) => ws.send('{not json'), 4002],
      ['?v=6&encoding=json', () => undefined, 4012],
      ['?v=10&encoding=json', (ws) => ws.send(JSON.stringify({ op: 2, d: { token: fake.token, intents: 1 << 30, properties: {} } })), 4013],
    ];
    for (const [query, act, code] of cases) {
      const raw = rawGateway(`${fake.gatewayUrl}${query}`);
      await new Promise((resolve) => raw.ws.once('open', resolve));
      act(raw.ws);
      await fake.waitFor(() => raw.closeCode() !== null, { description: `close ${code}` });
      expect(raw.closeCode()).toBe(code);
    }
  });

  it('speaks zlib-stream when asked: one deflate context, each payload flushed with 00 00 ff ff', async () => {
    const inflate = zlib.createInflate();
    const texts: string[] = [];
    inflate.on('data', (chunk: Buffer) => texts.push(chunk.toString()));
    const frames: Buffer[] = [];
    const raw = rawGateway(`${fake.gatewayUrl}?v=10&encoding=json&compress=zlib-stream`, (data) => {
      frames.push(data);
      inflate.write(data);
      return [];
    });
    await fake.waitFor(() => frames.length === 1 && texts.length === 1, { description: 'compressed HELLO' });
    expect(frames[0]!.subarray(-4).equals(Buffer.from([0, 0, 0xff, 0xff]))).toBe(true);
    expect(JSON.parse(texts[0]!)).toMatchObject({ op: 10 });
    raw.ws.send(JSON.stringify({ op: 2, d: { token: fake.token, intents: 1, properties: { os: 'linux', browser: 'test', device: 'test' } } }));
    await fake.waitFor(() => texts.join('').includes('"GUILD_CREATE"'), { description: 'READY and GUILD_CREATE' });
    const ready = texts.map((t) => JSON.parse(t) as Payload).find((p) => p.t === 'READY')!;
    expect(ready).toMatchObject({ op: 0, s: 1, d: { v: 10, resume_gateway_url: expect.stringContaining('/gateway/resume') } });
    raw.ws.close();
  });

  it('announces guilds added later with GUILD_CREATE and user voice moves with VOICE_STATE_UPDATE', async () => {
    client = await readyClient(fake);
    const joined = new Promise<string>((resolve) => client!.on('guildCreate', (g) => resolve(g.name)));
    fake.addGuild({ name: 'Second Guild', memberIds: [fake.users.bob.id] });
    expect(await joined).toBe('Second Guild');
    const moved = new Promise<string | null>((resolve) => client!.on('voiceStateUpdate', (_o, n) => resolve(n.channelId)));
    fake.setVoiceState({ userId: fake.users.alice.id, channelId: fake.voiceChannel.id });
    expect(await moved).toBe(fake.voiceChannel.id);
    expect(client.guilds.cache.get(fake.guild.id)?.voiceStates.cache.get(fake.users.alice.id)?.channelId).toBe(fake.voiceChannel.id);
  });
});
