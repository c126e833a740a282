import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelType, Permission, type ChannelRecord, type MessageRecord } from '../fakes/discord/index.ts';
import { pdfFile } from '../fixtures/documents/pdf-file.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

const MINUTE = 60_000;
const FILLER = ['tests are green', 'lunch at noon?', 'reviewing the docs PR', 'standup moved to 10', 'CI flaked again, rerunning'];

describe('discord: questions about the channel, answered from its history with the messages cited', () => {
  let h: Harness;
  let decided: MessageRecord;
  let secret: ChannelRecord;

  beforeAll(async () => {
    h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS } });
    const { fake } = h;
    const start = Date.now() - 600 * MINUTE;
    const history = Array.from({ length: 500 }, (_, i) => ({
      authorId: i % 2 === 0 ? fake.users.alice.id : fake.users.bob.id,
      content: `${FILLER[i % FILLER.length]} (#${i})`,
      at: start + i * MINUTE,
    }));
    history[137] = {
      authorId: fake.users.bob.id,
      content: 'Decided: the release date is March 14, after the security review.',
      at: start + 137 * MINUTE,
    };
    decided = fake.seedHistory(fake.textChannel.id, history)[137]!;
    const hidden = { id: fake.guild.id, type: 0 as const, allow: '0', deny: String(Permission.ViewChannel) };
    const member = (id: string) => ({ id, type: 1 as const, allow: String(Permission.ViewChannel | Permission.ReadMessageHistory), deny: '0' });
    secret = fake.addChannel({
      name: 'secret',
      type: ChannelType.GuildText,
      permissionOverwrites: [hidden, member(fake.users.alice.id), member(fake.botUser.id)],
    });
    fake.seedHistory(secret.id, [{ authorId: fake.users.alice.id, content: 'The launch codename is Falcon.', at: Date.now() - MINUTE }]);
  });

  afterAll(async () => {
    await h.close();
  });

  async function ask(channelId: string, content: string, authorId?: string): Promise<MessageRecord> {
    const before = h.finished;
    h.fake.sendMessage({ channelId, content: `${h.mention} ${content}`, ...(authorId && { authorId }) });
    await h.repliesFinished(before + 1);
    return h.botMessages(channelId).at(-1)!;
  }

  const sourceLines = (reply: MessageRecord) =>
    ((reply.embeds[0] as { description?: string } | undefined)?.description ?? '').split('\n').filter(Boolean);
  const historyPages = () =>
    h.fake.requests.filter((r) => r.method === 'GET' && /^\/channels\/\d+\/messages$/.test(r.path.split('?')[0]!.replace(/^\/api\/v\d+/, '')));

  it('finds the one message of 500 that decided it and cites it by its jump link, within the history pages of one question', async () => {
    const requestsBefore = h.fake.requests.length;
    const pagesBefore = historyPages().length;
    const reply = await ask(h.fake.textChannel.id, 'what did we decide about the release date? call search_messages {"query":"release date"}');
    expect(reply.content).toContain('Decided: the release date is March 14');
    expect(reply.content).toMatch(/\[1\]/);
    const jump = `https://discord.com/channels/${h.fake.guild.id}/${h.fake.textChannel.id}/${decided.id}`;
    expect(sourceLines(reply)).toEqual([expect.stringContaining(`[#general · Bob](${jump})`)]);
    const pages = historyPages().length - pagesBefore;
    expect(pages).toBeGreaterThanOrEqual(5);
    expect(pages).toBeLessThanOrEqual(h.config.workspace.historyPages);
    const reads = h.fake.requests.slice(requestsBefore).filter((r) => r.method === 'GET');
    expect(reads.length - pages).toBeLessThanOrEqual(3);
  });

  it('searches the text layer of a PDF shared in the channel, cited as its message; a damaged PDF beside it is only named', async () => {
    const shared = h.fake.sendMessage({
      channelId: h.fake.textChannel.id,
      authorId: h.fake.users.bob.id,
      content: 'signed copy',
      attachments: [
        { filename: 'broken.pdf', bytes: pdfFile([['lost']]).subarray(0, 80) },
        { filename: 'vendor-contract.pdf', bytes: pdfFile([['Vendor contract'], ['The vendor is Acme Corp, paid quarterly.']]) },
      ],
    });
    const reply = await ask(h.fake.textChannel.id, 'who is the vendor? call search_messages {"query":"vendor"}');
    expect(reply.content).toMatch(/signed copy \[file broken\.pdf: not readable \([^\n]*damaged[^\n]*\)\] \[file vendor-contract\.pdf, 2 pages\]/);
    expect(reply.content).toContain('The vendor is Acme Corp, paid quarterly.');
    const jump = `https://discord.com/channels/${h.fake.guild.id}/${h.fake.textChannel.id}/${String(shared.id)}`;
    expect(sourceLines(reply)).toEqual([expect.stringContaining(`[#general · Bob](${jump})`)]);
  });

  it('never cites a private channel in a public one, even when asked to look there; in the private channel it does', async () => {
    const publicReply = await ask(h.fake.textChannel.id, 'what is the codename? call search_messages {"query":"codename","channel":"#secret"}');
    expect(publicReply.content).toMatch(/#secret is private/);
    expect(publicReply.content).not.toContain('Falcon');
    expect(publicReply.embeds).toEqual([]);
    const privateReply = await ask(secret.id, 'what is the codename? call search_messages {"query":"codename"}');
    expect(privateReply.content).toContain('Falcon');
    expect(sourceLines(privateReply)).toEqual([
      expect.stringContaining(`[#secret · Alice](https://discord.com/channels/${h.fake.guild.id}/${secret.id}/`),
    ]);
  });

  it('reads no channel for someone who cannot see it', async () => {
    const reply = await ask(h.fake.textChannel.id, 'call search_messages {"query":"codename","channel":"#secret"}', h.fake.users.bob.id);
    expect(reply.content).toMatch(/You can't read #secret/);
    expect(reply.content).not.toContain('Falcon');
  });

  it('does not cite a message deleted since the last read', async () => {
    h.fake.deleteUserMessage({ channelId: h.fake.textChannel.id, messageId: decided.id });
    const reply = await ask(h.fake.textChannel.id, 'call search_messages {"query":"release date"}');
    expect(reply.content).not.toContain('March 14');
    expect(sourceLines(reply).length).toBeGreaterThan(0);
    expect(sourceLines(reply).join('\n')).not.toContain(decided.id);
  });
});
