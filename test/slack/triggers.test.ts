import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

describe('Herald on Slack: channel triggers set by admins', () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;

  beforeAll(async () => {
    ({ fake, emu, herald } = await startSlackWorld());
    Object.assign(fake.workspace.users.get(fake.userId)!, { is_admin: true });
  });

  afterAll(() => stopSlackWorld({ fake, emu, herald }));

  const finishedReplies = (channel: string) => fake.botMessages(channel).filter((m) => m.fileIds.length === 0 && m.stream?.state === 'stopped');

  /** This channel's /settings, as a workspace admin sets them. */
  async function configure(channel: string, text: string): Promise<void> {
    await fake.sendSlashCommand({ command: '/settings', channel, text: `--scope=channel ${text}` });
    await herald.settled();
  }

  it('answers every message of a trigger channel in its thread, with status reactions, but not bots nor messages for someone else', async () => {
    const bob = fake.addUser({ name: 'bob' });
    const robot = fake.addBot('robot');
    await configure(fake.channelId, '--answer-all=on --status-reactions=on');
    await fake.deliverEvent(fake.events.botMessage({ bot: robot, text: 'beep, bots talking' }));
    await fake.deliverEvent(fake.events.message({ channel: fake.channelId, text: `<@${bob.id}> can you check the build?` }));
    await fake.deliverEvent(fake.events.message({ channel: fake.channelId, text: '<!here> standup in five' }));
    const question = fake.events.message({ channel: fake.channelId, text: 'what is the tallest mountain?' });
    await fake.deliverEvent(question);
    await fake.waitFor(() => finishedReplies(fake.channelId)[0]);
    await herald.settled();

    const replies = finishedReplies(fake.channelId);
    expect(replies.map((m) => [m.thread_ts, m.text])).toEqual([[question.ts, 'Echo: [alice]: what is the tallest mountain?']]);
    expect(emu.requests).toHaveLength(1);
    expect(fake.calls('reactions.add').map((c) => c.args.name)).toEqual(['eyes', 'white_check_mark']);
    expect(fake.calls('reactions.remove').map((c) => c.args.name)).toEqual(['eyes']);
    const marks = () => fake.workspace.findMessage(fake.channelId, String(question.ts))?.reactions;
    expect(marks()).toEqual([{ name: 'white_check_mark', users: [fake.botUserId] }]);

    // Edited, the question is answered again there, and its mark set again (Slack's already_reacted is no failure).
    await fake.deliverEvent(fake.events.messageEdited({ channel: fake.channelId, ts: String(question.ts), text: 'what is the deepest lake?' }));
    await fake.waitFor(() => finishedReplies(fake.channelId).find((m) => m.text === 'Echo: [alice]: what is the deepest lake?'));
    await herald.settled();
    expect(finishedReplies(fake.channelId).map((m) => m.text)).toEqual(['Echo: [alice]: what is the deepest lake?']);
    expect(fake.calls('reactions.add').at(-1)?.response).toEqual({ ok: false, error: 'already_reacted' });
    expect(marks()).toEqual([{ name: 'white_check_mark', users: [fake.botUserId] }]);
  });

  it('answers a message starting with a trigger word, and leaves the rest of the channel alone', async () => {
    const channel = fake.addChannel({ name: 'words' }).id;
    await configure(channel, '--trigger-words="Herald, hey herald"');
    await fake.deliverEvent(fake.events.message({ channel, text: 'heraldry is a fine hobby' }));
    const called = fake.events.message({ channel, text: 'Hey Herald, what is new?' });
    await fake.deliverEvent(called);
    await fake.waitFor(() => finishedReplies(channel)[0]);
    await herald.settled();
    expect(finishedReplies(channel).map((m) => [m.thread_ts, m.text])).toEqual([[called.ts, 'Echo: [alice]: Hey Herald, what is new?']]);
    // Status reactions are off here (the default).
    expect(fake.workspace.findMessage(channel, String(called.ts))?.reactions).toEqual([]);
  });
  it('takes a member’s /persona in a DM only once admins allow it there, and the date stays in the prompt', async () => {
    const dm = fake.dmChannelId;
    const said = () => fake.responseUrlPosts.filter((p) => p.body.response_type === 'ephemeral').map((p) => String(p.body.text));
    const before = said().length;
    await fake.sendSlashCommand({ command: '/persona', channel: dm, text: 'set You are Captain Byte, a pirate.' });
    await herald.settled();
    await configure(dm, '--member-personas=on');
    await fake.sendSlashCommand({ command: '/persona', channel: dm, text: 'set You are Captain Byte, a pirate.' });
    await herald.settled();
    const [refused, , saved] = said().slice(before);
    expect(refused).toContain('Personas per conversation are off here');
    expect(saved).toMatch(/^Saved\./);

    const asked = emu.requests.length;
    await fake.deliverEvent(fake.events.directMessage({ text: 'who are you?' }));
    const request = await fake.waitFor(() => emu.requests[asked]);
    await herald.settled();
    const { messages } = request.body as { messages: Array<{ role: string; content: string }> };
    const system = messages.find((m) => m.role === 'system')!.content;
    expect(system.split('\n\n')[0]).toBe('You are Captain Byte, a pirate.');
    expect(system).toMatch(/Today is .* Your knowledge cutoff is December 2024/);
  });
});
