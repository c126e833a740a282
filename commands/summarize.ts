import { MAX_SUMMARY_MESSAGES, summaryTask } from '../src/workspace/summarize.ts';
import { parseSince } from '../src/workspace/summarize-since.ts';
import type { HistoryRange } from '../src/workspace/workspace-history.ts';
import { booleanOption, integerOption, stringOption, type CommandDefinition, type CommandServices, type InvocationContext } from './command.ts';
import { messageFromCommand } from './incoming.ts';
import type { MessageActionDefinition } from './message-action.ts';

/**
 * Summarizes `range` for the user who asked, as only they see it unless `post`: through the engine, so the asker's
 * quotas apply. With `sinceLastBy`, only what came after that user's last message in the range.
 */
export async function replySummary(
  ctx: InvocationContext,
  services: CommandServices,
  request: { range: HistoryRange; sinceLastBy?: string; post: boolean },
): Promise<void> {
  const history = ctx.workspace;
  if (!history) return ctx.reply('I cannot read the history here.', { ephemeral: true });
  const ephemeral = !request.post;
  await ctx.defer({ ephemeral });
  const { range, sinceLastBy } = request;
  const task = summaryTask({ history, range, ...(sinceLastBy !== undefined && { sinceLastBy }) }, services.config);
  await ctx.replyStream(services.engine.runTask(messageFromCommand(ctx, { text: `/summarize` }), task), { ephemeral });
}

/**
 * `/summarize [since] [count] [channel] [post]`: a channel or thread since a time, its last N messages, or, given
 * neither, a thread whole and a channel since the asker last wrote there.
 */
export const summarize: CommandDefinition = {
  name: 'summarize',
  description: 'Catch up: a summary of this channel or thread that cites its messages',
  ephemeral: true,
  options: [
    { name: 'since', description: 'From when: 30m, 2h, today, yesterday, 9:00 (default: since you last wrote)', type: 'string', maxLength: 40 },
    { name: 'count', description: 'Only the last N messages', type: 'integer', minValue: 1, maxValue: MAX_SUMMARY_MESSAGES },
    { name: 'channel', description: 'Another channel or thread (default: here)', type: 'channel', channelKinds: ['text', 'thread'] },
    { name: 'post', description: 'Post the summary for everyone (default: only you see it)', type: 'boolean' },
  ],
  async run(ctx, services) {
    const sinceText = stringOption(ctx, 'since');
    const since = sinceText === undefined ? undefined : parseSince(sinceText, new Date(), services.config.timezone);
    if (sinceText !== undefined && since === undefined) {
      return ctx.reply(`I can't read "${sinceText}" as a time: try 30m, 2h, today, yesterday or 9:00.`, { ephemeral: true });
    }
    const count = integerOption(ctx, 'count');
    const channel = stringOption(ctx, 'channel');
    const place = channel === undefined ? (ctx.workspace?.here ?? { channelId: ctx.channelId }) : { channelId: channel };
    const range: HistoryRange = {
      ...place,
      limit: count ?? MAX_SUMMARY_MESSAGES,
      ...(since !== undefined && { since }),
    };
    const caughtUp = since === undefined && count === undefined && range.threadId === undefined;
    await replySummary(ctx, services, { range, ...(caughtUp && { sinceLastBy: ctx.user.id }), post: booleanOption(ctx, 'post') ?? false });
  },
};

/** "Summarize from here": the message pressed on and every one after it, in its channel or thread. */
export const summarizeFromHere: MessageActionDefinition = {
  id: 'summarize_from_here',
  name: 'Summarize from here',
  description: 'Catch up from this message on, citing the messages',
  async run(ctx, services) {
    const range: HistoryRange = {
      channelId: ctx.channelId,
      ...(ctx.threadId !== undefined && { threadId: ctx.threadId }),
      fromId: ctx.target.id,
      limit: MAX_SUMMARY_MESSAGES,
    };
    await replySummary(ctx, services, { range, post: !ctx.ephemeral });
  },
};
