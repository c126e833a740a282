import type { FakeSlack } from '../../test/fakes/slack/index.ts';
import type { Conversation } from './conversation.ts';

/**
 * `count` Slack conversations, each with a user and a place of its own: the even ones a direct message, the odd
 * ones an @mention in a channel (answered in the mention's thread). Events go to Herald's /slack/events signed as
 * Slack signs them.
 */
export function slackConversations(fake: FakeSlack, count: number, prompt: string, answer: string): Conversation[] {
  return Array.from({ length: count }, (_, i) => {
    const user = fake.addUser({ name: `load-user-${i}` }).id;
    const direct = i % 2 === 0;
    const channel = fake.addChannel(direct ? { user } : { name: `load-${i}` }).id;
    return {
      platform: 'slack' as const,
      send: async () => {
        const event = direct ? fake.events.message({ text: prompt, user, channel }) : fake.events.appMention({ text: prompt, user, channel });
        const delivery = await fake.deliverEvent(event);
        if (delivery.status !== 200) throw new Error(`Herald answered a Slack event with ${delivery.status ?? 'nothing'}`);
      },
      complete: () => fake.botMessages(channel).some((m) => m.text === answer && m.stream?.state !== 'streaming'),
      extraReplies: () => Math.max(0, fake.botMessages(channel).length - 1),
    };
  });
}
