import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../../adapters/discord/index.ts';
import { ChannelType } from '../fakes/discord/index.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from '../discord/harness.ts';

const PIRATE = 'You are Captain Byte, a pirate who answers in rhymes.';

describe('a member’s persona for their own conversation', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS }, env: { QUOTA_USER_PER_MINUTE: '100', TZ: 'UTC' } });
    await registerCommands(h.config);
  });

  afterAll(async () => {
    await h.close();
  });

  async function command(name: string, channelId: string, options: Record<string, string>, extra: { userId?: string; subcommand?: string } = {}) {
    const before = h.finished;
    const record = h.fake.invokeCommand({ name, channelId, options: options as never, ...extra });
    await h.repliesFinished(before + 1);
    return h.fake.message(record.originalMessageId!)!;
  }

  /** The system prompt of the service request that answered a mention in `channelId`. */
  async function systemPromptFor(channelId: string, text: string): Promise<string> {
    const before = h.finished;
    const asked = h.emu.requests.length;
    h.fake.sendMessage({ channelId, content: `${h.mention} ${text}` });
    await h.repliesFinished(before + 1);
    const [request] = h.emu.requests.slice(asked);
    const { messages } = request!.body as { messages: Array<{ role: string; content: string }> };
    return messages.find((m) => m.role === 'system')!.content;
  }

  it('is refused until an admin allows it, then replaces the identity line of that conversation only, never the date', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'study' });
    const thread = fake.addChannel({ name: 'homework', type: ChannelType.PublicThread, parentId: channel.id });

    const refused = await command('persona', thread.id, { text: PIRATE }, { subcommand: 'set' });
    expect(refused).toMatchObject({ ephemeral: true, content: expect.stringContaining('Personas per conversation are off here') });
    expect(await systemPromptFor(thread.id, 'hello')).toMatch(/^You are Herald, /);

    const allowed = await command('settings', thread.id, { scope: 'channel', member_personas: 'on' }, { userId: fake.users.owner.id });
    expect(allowed.content).toContain('member personas: on');
    const saved = await command('persona', thread.id, { text: PIRATE }, { subcommand: 'set' });
    expect(saved.content).toMatch(/^Saved\./);

    const prompt = await systemPromptFor(thread.id, 'hello again');
    expect(prompt.split('\n\n')[0]).toBe(PIRATE);
    expect(prompt).not.toContain('You are Herald');
    expect(prompt).toMatch(/Today is \w+day, \d{1,2} \w+ \d{4} \(time zone UTC\)\. Your knowledge cutoff is December 2024/);
    // Another conversation in the same channel keeps Herald's own identity.
    expect(await systemPromptFor(channel.id, 'and here?')).toMatch(/^You are Herald, /);

    // Clearing brings Herald back.
    await command('persona', thread.id, {}, { subcommand: 'clear' });
    expect(await systemPromptFor(thread.id, 'who are you now?')).toMatch(/^You are Herald, /);

    // /reset forgets the persona with the conversation.
    await command('persona', thread.id, { text: PIRATE }, { subcommand: 'set' });
    expect((await command('reset', thread.id, {})).content).toBe('Done — I have forgotten this conversation.');
    expect(await systemPromptFor(thread.id, 'who are you after the reset?')).toMatch(/^You are Herald, /);

    // Set again, then disallowed by the admin: the member's persona no longer applies.
    await command('persona', thread.id, { text: PIRATE }, { subcommand: 'set' });
    await command('settings', thread.id, { scope: 'channel', member_personas: 'off' }, { userId: fake.users.owner.id });
    expect(await systemPromptFor(thread.id, 'still a pirate?')).toMatch(/^You are Herald, /);
  });
});
