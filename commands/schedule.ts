import type { NewSchedule } from '../src/schedules/schedule.ts';
import { booleanOption, stringOption, type CommandContext, type CommandDefinition, type CommandServices } from './command.ts';
import { hereOrDirect, WHEN_CHARS } from './remind.ts';
import { actorOf, confirmation, scheduleLine, scheduling, zoneOf } from './schedule-lines.ts';

const PROMPT_CHARS = 1500;
const ID_CHARS = 40;
/** Lines listed at most, so a reply stays readable (and within one message). */
const LISTED = 25;

const idOption = { name: 'id', description: 'The id /schedule list shows', type: 'string', required: true, maxLength: ID_CHARS } as const;

async function create(ctx: CommandContext, services: CommandServices): Promise<void> {
  const prompt = stringOption(ctx, 'prompt')?.trim() ?? '';
  const summarized = stringOption(ctx, 'summarize');
  if (prompt === '' && summarized === undefined) {
    return ctx.reply('Tell me what to do each time: a prompt, a channel to summarize, or both.', { ephemeral: true });
  }
  const channel = stringOption(ctx, 'channel');
  const target: NewSchedule['target'] = channel !== undefined ? { type: 'channel', channelId: channel } : hereOrDirect(ctx, false);
  const { schedules, timezones } = scheduling(services);
  const schedule = await schedules.create({
    kind: summarized === undefined ? 'prompt' : 'summary',
    platform: ctx.platform,
    ...(ctx.workspaceId !== undefined && { workspaceId: ctx.workspaceId }),
    creator: { id: ctx.user.id, displayName: ctx.user.displayName },
    target,
    text: prompt,
    ...(summarized !== undefined && { source: { channelId: summarized } }),
    when: stringOption(ctx, 'when') ?? '',
    timezone: await zoneOf(ctx, timezones),
  });
  await ctx.reply(confirmation(schedule, ctx), { ephemeral: true });
}

async function list(ctx: CommandContext, services: CommandServices): Promise<void> {
  const all = booleanOption(ctx, 'all') ?? false;
  if (all && !ctx.user.isAdmin) return ctx.reply('Only administrators can list everyone’s schedules.', { ephemeral: true });
  const { schedules: service, timezones } = scheduling(services);
  const schedules = await service.list(actorOf(ctx), { all });
  if (schedules.length === 0)
    return ctx.reply(all ? 'There are no schedules here.' : 'You have no reminders or schedules here.', { ephemeral: true });
  const zone = await zoneOf(ctx, timezones);
  const lines = schedules.slice(0, LISTED).map((schedule) => `• ${scheduleLine(schedule, ctx, zone)}`);
  if (schedules.length > LISTED) lines.push(`… and ${schedules.length - LISTED} more.`);
  await ctx.reply(lines.join('\n'), { ephemeral: true });
}

const DONE = { pause: 'Paused', resume: 'Resumed', delete: 'Deleted' } as const;

/** The id as given, without the backticks a copy from a list may bring along. */
function idOf(ctx: CommandContext): string {
  return stringOption(ctx, 'id')?.trim().replace(/^`|`$/g, '') ?? '';
}

async function change(ctx: CommandContext, services: CommandServices, action: keyof typeof DONE): Promise<void> {
  const { schedules, timezones } = scheduling(services);
  const schedule = await schedules[action](idOf(ctx), actorOf(ctx));
  await ctx.reply(`${DONE[action]}: ${scheduleLine(schedule, ctx, await zoneOf(ctx, timezones))}`, { ephemeral: true });
}

/** Runs a schedule once now, where it posts (its timetable stays); answered once the run is over. */
async function runNow(ctx: CommandContext, services: CommandServices): Promise<void> {
  await ctx.defer({ ephemeral: true });
  const id = idOf(ctx);
  await scheduling(services).schedules.run(id, actorOf(ctx));
  await ctx.reply(`Ran \`${id}\` once; its timetable stays as it was.`, { ephemeral: true });
}

/**
 * `/schedule create|list|pause|resume|delete|run`: recurring prompts run through the engine (and summaries of a
 * channel), posted here or in another channel. Members manage their own; administrators every one of the server's.
 */
export const schedule: CommandDefinition = {
  name: 'schedule',
  description: 'Recurring prompts and summaries, run on time and posted here or in another channel',
  ephemeral: true,
  options: [],
  subcommands: [
    {
      name: 'create',
      description: 'Run a prompt (or summarize a channel) on a schedule',
      options: [
        {
          name: 'when',
          description: 'every weekday at 9, every Friday at 17:00, tomorrow 8:30, or a cron pattern',
          type: 'string',
          required: true,
          maxLength: WHEN_CHARS,
        },
        { name: 'prompt', description: 'What to ask each time (with a summary: what to focus on)', type: 'string', maxLength: PROMPT_CHARS },
        { name: 'channel', description: 'Where to post (default: here)', type: 'channel', channelKinds: ['text', 'thread'] },
        {
          name: 'summarize',
          description: 'A channel to summarize each time, since the run before',
          type: 'channel',
          channelKinds: ['text', 'thread'],
        },
      ],
    },
    {
      name: 'list',
      description: 'Your reminders and schedules here',
      options: [{ name: 'all', description: 'Everyone’s in this server (administrators)', type: 'boolean' }],
    },
    { name: 'pause', description: 'Stop running a schedule until resumed', options: [idOption] },
    { name: 'resume', description: 'Run a paused schedule again', options: [idOption] },
    { name: 'delete', description: 'Delete a reminder or schedule', options: [idOption] },
    { name: 'run', description: 'Run a schedule once now, where it posts (its timetable stays)', options: [idOption] },
  ],
  async run(ctx, services) {
    switch (ctx.subcommand) {
      case 'create':
        return create(ctx, services);
      case 'list':
        return list(ctx, services);
      case 'pause':
      case 'resume':
      case 'delete':
        return change(ctx, services, ctx.subcommand);
      case 'run':
        return runNow(ctx, services);
    }
  },
};
