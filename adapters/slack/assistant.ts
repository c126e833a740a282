/**
 * Slack's AI assistant surface through Bolt's Assistant: a greeting and suggested prompts that fit the channel the
 * user was viewing when a thread opens, a "thinking…" status with rotating loading messages while an answer is
 * prepared, a title from the first question, and the answer streamed into the thread. The thread's context (that
 * channel) is kept in the core store, so it costs no Slack calls.
 */
import { Assistant } from '@slack/bolt';
import type { SlackRuntime } from './runtime.ts';
import { isFromPerson, type SlackMessageEvent } from './slack-event.ts';
import { redelivered, slackQuestion } from './slack-question.ts';

const GREETING = "Hi! I'm Herald. Ask me anything — I can search the web, describe images and transcribe voice clips.";
const PROMPTS = [
  { title: "What's new today?", message: 'What are the most important news today? Cite your sources.' },
  { title: 'Explain a concept', message: 'Explain how public-key cryptography works, simply.' },
  { title: 'Transcribe a clip', message: 'How do I get a voice clip transcribed?' },
];
const TITLE_CHARS = 60;
const CONTEXT_TTL_MS = 7 * 24 * 60 * 60_000;

/** Where the user was when they opened the assistant. */
interface AssistantThreadContext {
  channel_id?: string;
  team_id?: string;
  enterprise_id?: string | null;
}

interface ThreadRef {
  channel_id?: string;
  thread_ts?: string;
  context?: AssistantThreadContext;
}

/** Prompts about the channel the user is in (by name where Slack tells it), then generic ones: four at most. */
async function promptsFor(rt: SlackRuntime, channelId: string | undefined): Promise<Array<{ title: string; message: string }>> {
  if (!channelId || channelId.startsWith('D')) return PROMPTS;
  const name = await rt.api
    .call('conversations.info', channelId, (c) => c.conversations.info({ channel: channelId }))
    .then((info) => info.channel?.name)
    .catch((error: unknown) => {
      rt.logger.debug({ err: error, channel: channelId }, 'channel name not known; suggesting generic prompts');
      return undefined;
    });
  if (!name) return PROMPTS;
  const where = `<#${channelId}>`;
  return [
    { title: `Summarize #${name}`, message: `Summarize the latest discussion in ${where}.` },
    { title: `Open questions in #${name}`, message: `What questions are still open in ${where}, and who asked them?` },
    ...PROMPTS.slice(0, 2),
  ];
}

function contextKey(channel: string, threadTs: string): string {
  return `slack:assistant:${channel}:${threadTs}`;
}

function threadOf(payload: unknown): { channel: string; threadTs: string; context?: AssistantThreadContext } | undefined {
  const p = payload as { assistant_thread?: ThreadRef; channel?: string; thread_ts?: string };
  const channel = p.assistant_thread?.channel_id ?? p.channel;
  const threadTs = p.assistant_thread?.thread_ts ?? p.thread_ts;
  if (!channel || !threadTs) return undefined;
  return { channel, threadTs, ...(p.assistant_thread?.context && { context: p.assistant_thread.context }) };
}

export function createAssistant(rt: SlackRuntime): Assistant {
  const { api, core } = rt;
  const store = core.store;
  const suggestPrompts = async (channel: string, threadTs: string, viewing: string | undefined) => {
    const prompts = await promptsFor(rt, viewing);
    await api.call('assistant.threads.setSuggestedPrompts', channel, (c) =>
      c.assistant.threads.setSuggestedPrompts({ channel_id: channel, thread_ts: threadTs, prompts }),
    );
  };

  return new Assistant({
    threadContextStore: {
      get: async ({ payload }) => {
        const thread = threadOf(payload);
        return (thread && (await store.get<AssistantThreadContext>(contextKey(thread.channel, thread.threadTs)))) ?? {};
      },
      save: async ({ payload }) => {
        const thread = threadOf(payload);
        if (thread?.context) await store.set(contextKey(thread.channel, thread.threadTs), thread.context, CONTEXT_TTL_MS);
      },
    },
    threadStarted: async ({ payload, saveThreadContext }) => {
      const thread = threadOf(payload);
      if (!thread) return;
      await saveThreadContext();
      rt.run('assistant greeting', async () => {
        const { channel, threadTs } = thread;
        await api.call('chat.postMessage', channel, (c) => c.chat.postMessage({ channel, thread_ts: threadTs, text: GREETING }));
        await suggestPrompts(channel, threadTs, thread.context?.channel_id);
      });
    },
    // The user moved to another channel with the panel open: the prompts follow.
    threadContextChanged: async ({ payload, saveThreadContext }) => {
      await saveThreadContext();
      const thread = threadOf(payload);
      if (thread) rt.run('assistant prompts', () => suggestPrompts(thread.channel, thread.threadTs, thread.context?.channel_id));
    },
    userMessage: async ({ message, context }) => {
      const event = message as unknown as SlackMessageEvent;
      const threadTs = event.thread_ts;
      if (!threadTs || !isFromPerson(event, rt.identity.botUserId)) return;
      rt.ask('assistant message', async (signal) => {
        // The title is a nicety: a store outage must not keep the question from the flow, which tells the asker.
        const untitled = await store
          .setIfAbsent(`slack:assistant-titled:${event.channel}:${threadTs}`, '1', CONTEXT_TTL_MS)
          .catch((error: unknown) => {
            rt.logger.warn({ err: error }, 'assistant title not set: the store is unavailable');
            return false;
          });
        if (untitled) {
          const text = (event.text ?? '').replace(/\s+/g, ' ').trim();
          if (text !== '') {
            const title = text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS - 1)}…` : text;
            await api
              .call('assistant.threads.setTitle', event.channel, (c) =>
                c.assistant.threads.setTitle({ channel_id: event.channel, thread_ts: threadTs, title }),
              )
              .catch((error: unknown) => rt.logger.debug({ err: error }, 'assistant title not set'));
          }
        }
        await rt.flow.asked(slackQuestion(rt, event, { threadTs, assistant: true }), signal, redelivered(context));
      });
    },
  });
}
