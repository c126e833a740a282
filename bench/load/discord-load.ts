import type { FakeDiscord } from '../../test/fakes/discord/index.ts';
import type { Conversation } from './conversation.ts';

/**
 * `count` Discord conversations, each in a place of its own so every reply has its own per-channel rate-limit
 * buckets: the even ones in a user's DM, the odd ones an @mention in a server channel of their own.
 */
export function discordConversations(fake: FakeDiscord, count: number, prompt: string, answer: string): Conversation[] {
  const bot = fake.botUser.id;
  const expected = answer.trimEnd();
  return Array.from({ length: count }, (_, i) => {
    const user = fake.addUser({ username: `load-user-${i}` });
    let channelId: string;
    let content: string;
    if (i % 2 === 0) {
      channelId = fake.dmChannelFor(user.id).id;
      content = prompt;
    } else {
      fake.addMember({ userId: user.id });
      channelId = fake.addChannel({ name: `load-${i}` }).id;
      content = `<@${bot}> ${prompt}`;
    }
    return {
      platform: 'discord' as const,
      send: () => void fake.sendMessage({ channelId, authorId: user.id, content }),
      complete: () => fake.messages(channelId).some((m) => m.authorId === bot && m.content === expected),
    };
  });
}
