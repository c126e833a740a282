import type { SlackApi } from './slack-api.ts';

/** Slack rotates through these (10 at most) under "is thinking…" until the answer starts. */
const LOADING_MESSAGES = ['Reading your question…', 'Thinking it over…', 'Weighing what I know…', 'Putting the answer together…'];
const THINKING = 'is thinking…';

/**
 * Shows what Herald is doing in an assistant thread (assistant.threads.setStatus); '' clears it. Slack shows the
 * status after the app's name ("Herald is thinking…"); repeating the current one costs a call for nothing.
 */
export function assistantStatus(api: SlackApi, channel: string, threadTs: string): (text: string) => Promise<void> {
  let shown: string | undefined;
  return async (text: string) => {
    const status = text === '' || text.startsWith('is ') ? text : `is ${text}`;
    if (status === shown) return;
    shown = status;
    await api.call('assistant.threads.setStatus', channel, (c) =>
      c.assistant.threads.setStatus({
        channel_id: channel,
        thread_ts: threadTs,
        status,
        ...(status === THINKING && { loading_messages: LOADING_MESSAGES }),
      }),
    );
  };
}
