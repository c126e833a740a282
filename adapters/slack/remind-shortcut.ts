/**
 * "Remind me about this", a message shortcut of Slack's alone (Slack's own /remind is taken): a modal asks when,
 * and the reminder comes by direct message at that time, quoting the message and linking to it. A time that
 * cannot be read, or has passed, is said under the field, the modal staying open.
 */
import type { App, MessageShortcut } from '@slack/bolt';
import type { CommandServices } from '../../commands/command.ts';
import { REMINDER_CHARS, WHEN_CHARS, newReminder } from '../../commands/remind.ts';
import { confirmation } from '../../commands/schedule-lines.ts';
import { describeError } from '../../src/errors.ts';
import { readSlackText } from './incoming-text.ts';
import { escapeMrkdwn } from './mrkdwn.ts';
import type { SlackRuntime } from './runtime.ts';

/** The shortcut as the manifest declares it. */
export const remindShortcut = {
  id: 'remind_about_message',
  name: 'Remind me about this',
  description: 'Get a direct message about this message when you say',
} as const;
const REMIND_SHORTCUT = remindShortcut.id;
const EXCERPT_CHARS = 200;

/** What the modal carries from the shortcut to its submission (private_metadata). */
interface RemindMetadata {
  channel: string;
  ts: string;
  threadTs?: string;
  excerpt: string;
}

function metadataOf(raw: string): RemindMetadata | undefined {
  try {
    const value = JSON.parse(raw) as Partial<RemindMetadata>;
    if (typeof value.channel !== 'string' || typeof value.ts !== 'string' || typeof value.excerpt !== 'string') return undefined;
    return { channel: value.channel, ts: value.ts, excerpt: value.excerpt, ...(typeof value.threadTs === 'string' && { threadTs: value.threadTs }) };
  } catch {
    return undefined;
  }
}

/** The message's text as people read it, mentions as names, cut to a line or two. */
async function excerptOf(rt: SlackRuntime, text: string): Promise<string> {
  const shown = (await rt.users.mentionsAsNames(readSlackText(text))).replace(/\s+/g, ' ').trim();
  return shown.length > EXCERPT_CHARS ? `${shown.slice(0, EXCERPT_CHARS - 1)}…` : shown;
}

async function openModal(rt: SlackRuntime, shortcut: MessageShortcut): Promise<void> {
  const message = shortcut.message as { ts: string; text?: string; thread_ts?: string };
  const excerpt = await excerptOf(rt, message.text ?? '');
  const metadata: RemindMetadata = {
    channel: shortcut.channel.id,
    ts: message.ts,
    excerpt,
    ...(message.thread_ts && { threadTs: message.thread_ts }),
  };
  await rt.api.call('views.open', undefined, (c) =>
    c.views.open({
      trigger_id: shortcut.trigger_id,
      view: {
        type: 'modal',
        callback_id: REMIND_SHORTCUT,
        title: { type: 'plain_text', text: 'Remind me about this' },
        submit: { type: 'plain_text', text: 'Remind me' },
        close: { type: 'plain_text', text: 'Cancel' },
        private_metadata: JSON.stringify(metadata),
        blocks: [
          ...(excerpt ? [{ type: 'context' as const, elements: [{ type: 'mrkdwn' as const, text: `> ${escapeMrkdwn(excerpt)}` }] }] : []),
          {
            type: 'input',
            block_id: 'when',
            label: { type: 'plain_text', text: 'When?' },
            element: {
              type: 'plain_text_input',
              action_id: 'when',
              max_length: WHEN_CHARS,
              placeholder: { type: 'plain_text', text: 'in 20 minutes, tomorrow 9am, next Monday 10:00' },
            },
          },
        ],
      },
    }),
  );
}

export function registerRemindShortcut(app: App, rt: SlackRuntime): void {
  app.shortcut<MessageShortcut>({ type: 'message_action', callback_id: REMIND_SHORTCUT }, async ({ shortcut, ack }) => {
    await ack();
    rt.run(`shortcut ${REMIND_SHORTCUT}`, () => openModal(rt, shortcut));
  });

  app.view(REMIND_SHORTCUT, async ({ ack, body, view }) => {
    const when = view.state.values.when?.when?.value?.trim() ?? '';
    const metadata = metadataOf(view.private_metadata);
    const refuse = (text: string) => ack({ response_action: 'errors', errors: { when: text } });
    if (!metadata) return refuse('This form is out of date: pick "Remind me about this" on the message again.');
    const userId = body.user.id;
    const { channel, ts, threadTs, excerpt } = metadata;
    let schedule;
    try {
      const [person, link] = await Promise.all([
        rt.users.get(userId),
        // A conversation Herald is not in (a DM between two people) gives no link: the reminder quotes the message alone.
        rt.api
          .call('chat.getPermalink', undefined, (c) => c.chat.getPermalink({ channel, message_ts: ts }))
          .then((r) => r.permalink ?? '')
          .catch(() => ''),
      ]);
      const what = [excerpt ? `“${excerpt}”` : 'this message', link].filter(Boolean).join(' ').slice(0, REMINDER_CHARS);
      const subject = {
        platform: 'slack',
        workspaceId: rt.identity.teamId,
        channelId: channel,
        ...(threadTs !== undefined && { threadId: threadTs }),
        user: { id: userId, displayName: person.displayName, isAdmin: false, ...(person.timezone !== undefined && { timezone: person.timezone }) },
        isDirect: channel.startsWith('D'),
      };
      const services: CommandServices = rt.core;
      schedule = await newReminder(subject, services, { when, what, direct: true });
    } catch (error) {
      const report = describeError(error);
      if (report.kind === 'internal') rt.logger.error({ err: error }, 'setting a reminder from the shortcut failed');
      return refuse(report.message);
    }
    await ack();
    const text = confirmation(schedule, { channelId: channel, ...(threadTs !== undefined && { threadId: threadTs }) });
    rt.run('reminder set', async () => {
      await rt.api.call('chat.postMessage', userId, (c) => c.chat.postMessage({ channel: userId, text: escapeMrkdwn(text), unfurl_links: false }));
    });
  });
}
