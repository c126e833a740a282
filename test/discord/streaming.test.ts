import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTyping } from '../../adapters/discord/typing.ts';
import { startHarness, type Harness } from './harness.ts';
import { silentLogger } from '../helpers/logger.ts';

describe('discord: streamed replies', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });

  afterEach(() => {
    h.emu.pace.tokensPerSecond = 0;
  });

  afterAll(async () => {
    await h.close();
  });

  it('finishes a reply when the gateway drops in the middle of it, and answers again after the resume', async () => {
    const { fake, emu } = h;
    const channel = fake.addChannel({ name: 'gateway-drop' });
    emu.pace.tokensPerSecond = 150;
    let before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} long 150` });
    await fake.waitFor(() => h.botMessages(channel.id).length > 0);
    const connections = fake.gatewayConnections.length;
    fake.dropGatewayConnections({ abrupt: true });
    await h.repliesFinished(before + 1);
    const words = h.botMessages(channel.id)[0]!.content.split(/\s+/);
    expect(words).toHaveLength(150);
    expect(words.at(-1)).toMatch(/\.$/);

    await fake.waitFor(() => fake.openGatewayConnections === 1 && fake.gatewayConnections.length > connections);
    emu.pace.tokensPerSecond = 0;
    before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} still there?` });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id).at(-1)?.content).toBe('Echo: [Alice]: still there?');
  });

  it('shares the edit allowance of a channel between replies streaming at the same time: no 429s', async () => {
    const { fake, emu } = h;
    const channel = fake.addChannel({ name: 'busy' });
    emu.pace.tokensPerSecond = 70;
    const before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} long 100` });
    fake.sendMessage({ channelId: channel.id, authorId: fake.users.bob.id, content: `${h.mention} long 100` });
    await h.repliesFinished(before + 2);
    expect(fake.rateLimitedCount).toBe(0);
    const edits = fake.requests.filter((r) => r.method === 'PATCH' && r.params.channel_id === channel.id);
    const windows = Math.floor((edits.at(-1)!.timestamp - edits[0]!.timestamp) / 5000) + 1;
    expect(edits.length).toBeLessThanOrEqual(5 * windows);
    for (const reply of h.botMessages(channel.id)) expect(reply.content.split(/\s+/)).toHaveLength(100);
  });

  it('continues a long answer in further messages without breaking its code block', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'code' });
    const code = Array.from({ length: 120 }, (_, i) => `console.log("line ${i} of a long listing");`).join('\n');
    const before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} please review:\n\`\`\`js\n${code}\n\`\`\`` });
    await h.repliesFinished(before + 1);
    const messages = h.botMessages(channel.id).map((m) => m.content);
    expect(messages.length).toBeGreaterThan(2);
    for (const text of messages) {
      expect(text.length).toBeLessThanOrEqual(2000);
      expect(text.match(/```/g)?.length ?? 0).toBe(2);
    }
    expect(messages[1]).toMatch(/^```js\n/);
    const lines = messages
      .join('\n')
      .split('\n')
      .filter((l) => l.startsWith('console.log'));
    expect(lines).toEqual(code.split('\n'));
  });

  it('says what went wrong in a short line when the service fails, with no stack trace', async () => {
    const { fake, emu } = h;
    const channel = fake.addChannel({ name: 'service-down' });
    emu.faults.push({ status: 500, times: 3 });
    const before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} anyone home?` });
    await h.repliesFinished(before + 1);
    const messages = h.botMessages(channel.id);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.content).toMatch(/^⚠️ .+/);
    expect(messages[0]!.content.length).toBeLessThan(300);
    expect(messages[0]!.content).not.toMatch(/\n\s+at |Error:/);
  });

  it('stops without an error message when the message being streamed is deleted (test/discord/deleted-messages.test.ts has more)', async () => {
    const { fake, emu } = h;
    const channel = fake.addChannel({ name: 'deleted-midway' });
    emu.pace.tokensPerSecond = 100;
    const before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} long 120` });
    const first = await fake.waitFor(() => h.botMessages(channel.id)[0]);
    fake.deleteUserMessage({ channelId: channel.id, messageId: first.id });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id)).toEqual([]);
  });

  it('keeps the typing indicator up until stopped', async () => {
    const { fake, bot } = h;
    const channel = fake.addChannel({ name: 'typing' });
    const discordChannel = await bot.client.channels.fetch(channel.id);
    if (!discordChannel?.isSendable()) throw new Error('channel not sendable');
    const typingRequests = () => fake.requests.filter((r) => r.path === `/channels/${channel.id}/typing`).length;
    const typing = startTyping(discordChannel, silentLogger, 60);
    await fake.waitFor(() => typingRequests() >= 3);
    typing.stop();
    const stoppedAt = typingRequests();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(typingRequests()).toBe(stoppedAt);
  });
});
