import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeSlack, Json, StoredMessage } from '../../test/fakes/slack/index.ts';
import type { Conversation } from './conversation.ts';

/** One turn of a dialogue: which instance took its event and when, and when its answer was complete. */
export interface Turn {
  /** The balancer's upstream that took the event (X-Served-By), after Slack's retries. */
  servedBy?: string;
  ackedAt?: number;
  doneAt?: number;
}

/** A Slack conversation of two turns: a question, then `recall` once its answer is complete. */
export interface SlackDialogue extends Conversation {
  turns: [Turn, Turn];
  /** Whether the second answer quotes the first question: the history reached whichever instance answered. */
  remembered(): boolean;
  /** Herald's messages in the conversation beyond one per question. */
  extraReplies(): number;
}

const POLL_MS = 50;
const RECALL_ANSWER = 'You first said: ';

const finished = (m: StoredMessage) => m.stream?.state !== 'streaming';

/**
 * `count` two-turn Slack conversations, each with a user and a place of its own: the even ones a direct message,
 * the odd ones an @mention in a channel followed up in its thread without one. The first question is numbered
 * (`note i: <prompt>`), answered with `answer`; the second asks the emulator to recall it. The second turn is
 * sent when the first answer is complete, or never when it is not within `timeoutMs` (send() then fails).
 */
export function slackDialogues(fake: FakeSlack, count: number, prompt: string, answer: string, timeoutMs: number): SlackDialogue[] {
  return Array.from({ length: count }, (_, i) => {
    const user = fake.addUser({ name: `dialogue-user-${i}` }).id;
    const direct = i % 2 === 0;
    const channel = fake.addChannel(direct ? { user } : { name: `dialogue-${i}` }).id;
    const question = `note ${i}: ${prompt}`;
    const turns: [Turn, Turn] = [{}, {}];
    const replies = () => fake.botMessages(channel);
    const firstAnswer = () => replies().find((m) => finished(m) && m.text === answer);
    // Answered whether or not the history came through: then it recalls `recall` itself.
    const secondAnswer = () =>
      replies().find((m) => finished(m) && m.text.startsWith(RECALL_ANSWER) && (m.text.endsWith(question) || m.text.endsWith('recall')));
    const deliver = async (event: Json, turn: Turn) => {
      const delivery = await fake.deliverEvent(event);
      if (delivery.status !== 200)
        throw new Error(`Slack's event got ${delivery.status ?? delivery.error} after ${delivery.headers['x-slack-retry-num'] ?? 0} retries`);
      turn.servedBy = delivery.responseHeaders['x-served-by'];
      turn.ackedAt = performance.now();
    };
    return {
      platform: 'slack' as const,
      turns,
      send: async () => {
        const opening = direct ? fake.events.message({ text: question, user, channel }) : fake.events.appMention({ text: question, user, channel });
        const deadline = performance.now() + timeoutMs;
        await deliver(opening, turns[0]);
        while (!firstAnswer()) {
          if (performance.now() > deadline) throw new Error(`no complete answer to ${question}`);
          await sleep(POLL_MS);
        }
        turns[0].doneAt = performance.now();
        const followUp = direct
          ? fake.events.message({ text: 'recall', user, channel })
          : fake.events.threadReply({ text: 'recall', user, channel, thread_ts: String(opening.ts) });
        await deliver(followUp, turns[1]);
      },
      complete: () => {
        if (turns[1].doneAt === undefined && turns[1].ackedAt !== undefined && secondAnswer()) turns[1].doneAt = performance.now();
        return turns[1].doneAt !== undefined;
      },
      remembered: () => secondAnswer()?.text.endsWith(question) === true,
      extraReplies: () => Math.max(0, replies().length - 2),
    };
  });
}
