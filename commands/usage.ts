import { AnswerFeedback, type FeedbackCounts } from '../src/conversation/feedback.ts';
import type { UsageTotals } from '../src/conversation/usage-ledger.ts';
import type { CommandDefinition } from './command.ts';

const number = new Intl.NumberFormat('en-US');

/** One line of /usage: replies and tokens (of the daily budget, when given), with the extras that were used. */
export function usageLine(label: string, totals: UsageTotals, dailyLimit?: number): string {
  const tokens = `${number.format(totals.totalTokens)} tokens${dailyLimit ? ` of ${number.format(dailyLimit)}` : ''}`;
  const extras = [
    totals.reasoningTokens > 0 && `${number.format(totals.reasoningTokens)} reasoning`,
    totals.imageTokens > 0 && `${number.format(totals.imageTokens)} image`,
    totals.audioSeconds > 0 && `${number.format(Math.round(totals.audioSeconds))} s of audio`,
    totals.webSearchCalls > 0 && `${number.format(totals.webSearchCalls)} web searches`,
  ].filter(Boolean);
  return `**${label}:** ${number.format(totals.replies)} replies, ${tokens}${extras.length ? ` (${extras.join(', ')})` : ''}`;
}

/** The workspace's 👍/👎 on answers, for admins. */
export function feedbackLine(votes: FeedbackCounts): string {
  return `**Feedback on answers here:** 👍 ${number.format(votes.positive)} · 👎 ${number.format(votes.negative)}`;
}

export const usage: CommandDefinition = {
  name: 'usage',
  description: 'How much you (and this server) have used Herald today',
  ephemeral: true,
  options: [],
  async run(ctx, { engine, store }) {
    const mine = await engine.usage({ platform: ctx.platform, userId: ctx.user.id });
    const lines = [
      usageLine('You today', mine.today, mine.limits.dailyTokens),
      usageLine('You in total', mine.total),
      `Limits: ${mine.limits.requestsPerMinute} requests a minute; the daily budget resets at midnight.`,
    ];
    if (ctx.workspaceId !== undefined) {
      const server = await engine.usage({ platform: ctx.platform, workspaceId: ctx.workspaceId });
      lines.push(usageLine('This server today', server.today, server.limits.dailyTokens));
      if (ctx.user.isAdmin) {
        lines.push(feedbackLine(await new AnswerFeedback(store).counts(ctx.platform, ctx.workspaceId)));
      }
    }
    await ctx.reply(lines.join('\n'), { ephemeral: true });
  },
};
