import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../fakes/slack/index.ts';
import type { StoredMessage } from '../fakes/slack/state.ts';
import { pdfFile } from '../fixtures/documents/pdf-file.ts';
import { startSlackWorld, stopSlackWorld, type SlackWorld } from './herald-on-fake-slack.ts';

const MINUTE = 60_000;
const FILLER = ['tests are green', 'lunch at noon?', 'reviewing the docs PR', 'standup moved to 10', 'CI flaked again, rerunning'];

/** `count` past messages of alice and bob in `channel`, a minute apart, ending a minute ago. */
function seed(fake: FakeSlack, channel: string, count: number, special: Record<number, string> = {}): StoredMessage[] {
  const bob = fake.addUser({ name: 'bob' });
  const start = Date.now() - (count + 1) * MINUTE;
  return fake.workspace.seedHistory(
    channel,
    Array.from({ length: count }, (_, i) => ({
      user: i % 2 === 0 ? fake.userId : bob.id,
      text: special[i] ?? `${FILLER[i % FILLER.length]} (#${i})`,
      at: start + i * MINUTE,
    })),
  );
}

/** The part of a permalink that names the message: `/archives/{channel}/p{ts without the dot}`. */
const permalink = (channel: string, ts: string) => `/archives/${channel}/p${ts.replace('.', '')}`;

/** The answer's source lines (one per cited source), as Slack shows them under it. */
function sourceLines(message: StoredMessage): string[] {
  const texts = (message.blocks ?? []).flatMap((b) =>
    (b as { type: string }).type === 'context' ? (b as { elements: Array<{ text: string }> }).elements : [],
  );
  return texts.flatMap((e) => e.text.split('\n')).filter((line) => line !== '*Sources*');
}

describe('slack: questions about the channel, answered from its history with the messages cited', () => {
  let world: SlackWorld;
  let decided: StoredMessage;
  let secret: string;

  beforeAll(async () => {
    world = await startSlackWorld();
    const { fake } = world;
    decided = seed(fake, fake.channelId, 500, { 321: 'Decided: the release date is March 14, after the security review.' })[321]!;
    secret = fake.addChannel({ name: 'secret', is_private: true }).id;
    fake.workspace.setMembers(secret, [fake.userId]);
    fake.workspace.seedHistory(secret, [{ user: fake.userId, text: 'The launch codename is Falcon.', at: Date.now() - MINUTE }]);
  });

  afterAll(() => stopSlackWorld(world));

  async function ask(event: Record<string, unknown>): Promise<StoredMessage> {
    const { fake } = world;
    const channel = String(event.channel);
    const before = fake.botMessages(channel).length;
    await fake.deliverEvent(event);
    const reply = await fake.waitFor(() => fake.botMessages(channel)[before]);
    await world.herald.settled();
    return reply;
  }

  it('finds the one message of 500 that decided it and cites it by its permalink, within the pages of one question', async () => {
    const { fake } = world;
    const callsBefore = fake.calls().length;
    const reply = await ask(
      fake.events.appMention({ text: 'what did we decide about the release date? call search_messages {"query":"release date"}' }),
    );
    expect(reply.text).toContain('Decided: the release date is March 14');
    const lines = sourceLines(reply);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(permalink(fake.channelId, decided.ts));
    expect(lines[0]).toMatch(/\|\[1\] #general · bob> · <!date\^\d+\^/);
    const calls = fake
      .calls()
      .slice(callsBefore)
      .map((c) => c.method);
    const pages = calls.filter((m) => m === 'conversations.history').length;
    expect(pages).toBe(3);
    expect(calls.filter((m) => m === 'chat.getPermalink')).toHaveLength(1);
  });

  it('searches the text of files shared in the channel too', async () => {
    const { fake } = world;
    const plan = fake.uploadUserFile({
      name: 'release-plan.txt',
      bytes: Buffer.from('Code freeze on March 10.\nShip on March 14.'),
      mimetype: 'text/plain',
    });
    const shared = fake.events.fileShare({ channel: fake.channelId, text: 'the plan', files: [plan] });
    await fake.deliverEvent(shared);
    const reply = await ask(fake.events.appMention({ text: 'call search_messages {"query":"code freeze"}' }));
    expect(reply.text).toMatch(/\[1\] [^\n]* · #general · alice: the plan \[file release-plan\.txt\] Code freeze on March 10\./);
    expect(sourceLines(reply)).toEqual([expect.stringContaining(permalink(fake.channelId, String(shared.ts)))]);
  });

  it('searches the text layer of a PDF shared in the channel, and a damaged PDF beside it is only named', async () => {
    const { fake } = world;
    const contract = fake.uploadUserFile({
      name: 'vendor-contract.pdf',
      bytes: pdfFile([['Vendor contract'], ['The vendor is Acme Corp, paid quarterly.']]),
      mimetype: 'application/pdf',
    });
    const broken = fake.uploadUserFile({ name: 'broken.pdf', bytes: pdfFile([['lost']]).subarray(0, 80), mimetype: 'application/pdf' });
    const shared = fake.events.fileShare({ channel: fake.channelId, text: 'signed copy', files: [broken, contract] });
    await fake.deliverEvent(shared);
    const reply = await ask(fake.events.appMention({ text: 'who is the vendor? call search_messages {"query":"vendor"}' }));
    expect(reply.text).toMatch(
      /\[1\] [^\n]* · #general · alice: signed copy \[file broken\.pdf: not readable \([^\n]*damaged[^\n]*\)\] \[file vendor-contract\.pdf, 2 pages\]/,
    );
    expect(reply.text).toContain('The vendor is Acme Corp, paid quarterly.');
    expect(sourceLines(reply)).toEqual([expect.stringContaining(permalink(fake.channelId, String(shared.ts)))]);
  });

  it('never cites a private channel in a public one, even when asked to look there; in a direct message it does', async () => {
    const { fake } = world;
    const inPublic = await ask(fake.events.appMention({ text: 'call search_messages {"query":"codename","channel":"#secret"}' }));
    expect(inPublic.text).toMatch(/#secret is private/);
    expect(inPublic.text).not.toContain('Falcon');
    expect(sourceLines(inPublic)).toEqual([]);
    const inDm = await ask(fake.events.directMessage({ text: 'call search_messages {"query":"codename","channel":"#secret"}' }));
    expect(inDm.text).toContain('Falcon');
    expect(sourceLines(inDm).join('\n')).toContain(`|[1] #secret · alice>`);
  });

  it('reads no channel for someone who is not in it', async () => {
    const { fake } = world;
    const carol = fake.addUser({ name: 'carol' });
    const reply = await ask(fake.events.appMention({ text: 'call search_messages {"query":"codename","channel":"#secret"}', user: carol.id }));
    expect(reply.text).toMatch(/You can't read #secret/);
    expect(reply.text).not.toContain('Falcon');
  });

  it('does not cite a message deleted since the last read', async () => {
    const { fake } = world;
    await fake.deliverEvent(fake.events.messageDeleted({ channel: fake.channelId, ts: decided.ts }));
    const reply = await ask(fake.events.appMention({ text: 'call search_messages {"query":"release date"}' }));
    expect(reply.text).not.toContain('March 14');
    expect(sourceLines(reply).join('\n')).not.toContain(permalink(fake.channelId, decided.ts));
  });
});

describe("slack: an app on Slack's limited history tier", () => {
  let world: SlackWorld;

  beforeAll(async () => {
    world = await startSlackWorld({ slack: { rateLimits: { limitedHistory: true } } });
    seed(world.fake, world.fake.channelId, 100, { 10: 'Decided: the release date is March 14.' });
  });

  afterAll(() => stopSlackWorld(world));

  it('says plainly how far back it could read instead of waiting minutes for more', async () => {
    const { fake } = world;
    await fake.deliverEvent(fake.events.appMention({ text: 'call search_messages {"query":"release date"}' }));
    const reply = await fake.waitFor(() => fake.botMessages(fake.channelId).find((m) => m.stream?.state === 'stopped'));
    expect(reply.text).toMatch(
      /Slack lets this app read only 15 messages a minute here .* so I could read the latest 15 messages \(back to \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/,
    );
    expect(reply.text).not.toContain('March 14');
    expect(fake.calls('conversations.history')).toHaveLength(1);
  });
});
