import type { FakeDiscord } from '../../test/fakes/discord/index.ts';
import type { Conversation } from './conversation.ts';

/**
 * `count` Discord conversations, each in a place of its own so every reply has its own per-channel rate-limit
 * buckets: the even ones in a user's DM, the odd ones an @mention in a server channel of their own, in the
 * servers `guildIds` in turn (the fake's default server unless given).
 */
export function discordConversations(fake: FakeDiscord, count: number, prompt: string, answer: string, guildIds = [fake.guild.id]): Conversation[] {
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
      const guildId = guildIds[((i - 1) / 2) % guildIds.length]!;
      fake.addMember({ guildId, userId: user.id });
      channelId = fake.addChannel({ guildId, name: `load-${i}` }).id;
      content = `<@${bot}> ${prompt}`;
    }
    return {
      platform: 'discord' as const,
      send: () => void fake.sendMessage({ channelId, authorId: user.id, content }),
      complete: () => fake.messages(channelId).some((m) => m.authorId === bot && m.content === expected),
      extraReplies: () => Math.max(0, fake.messages(channelId).filter((m) => m.authorId === bot).length - 1),
    };
  });
}
