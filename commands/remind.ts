import type { Schedule, ScheduleTarget } from '../src/schedules/schedule.ts';
import { booleanOption, stringOption, type CommandDefinition, type CommandServices, type InvocationContext } from './command.ts';
import { confirmation, scheduling, zoneOf } from './schedule-lines.ts';

export const WHEN_CHARS = 100;
export const REMINDER_CHARS = 1000;

/** Who sets a reminder from where: what an invocation and a platform's own reminder form share. */
export type ReminderSubject = Pick<InvocationContext, 'platform' | 'workspaceId' | 'channelId' | 'threadId' | 'user' | 'isDirect'>;

/** Where a run is delivered: by direct message when asked (or set in one), else where it was set. */
export function hereOrDirect(subject: Pick<ReminderSubject, 'channelId' | 'threadId' | 'isDirect'>, direct: boolean): ScheduleTarget {
  if (direct || subject.isDirect) return { type: 'direct' };
  return { type: 'channel', channelId: subject.channelId, ...(subject.threadId !== undefined && { threadId: subject.threadId }) };
}

/** Stores a reminder for the user, `when` read in their time zone; throws a ScheduleError fit to show them. */
export async function newReminder(
  subject: ReminderSubject,
  services: Pick<CommandServices, 'schedules' | 'timezones'>,
  request: { when: string; what: string; direct: boolean },
): Promise<Schedule> {
  const { schedules, timezones } = scheduling(services);
  return schedules.create({
    kind: 'reminder',
    platform: subject.platform,
    ...(subject.workspaceId !== undefined && { workspaceId: subject.workspaceId }),
    creator: { id: subject.user.id, displayName: subject.user.displayName },
    target: hereOrDirect(subject, request.direct),
    text: request.what,
    when: request.when,
    timezone: await zoneOf(subject, timezones),
  });
}

/** `/remind when what [dm]`: a reminder mentioning only the user, here (this thread) or by direct message. */
export const remind: CommandDefinition = {
  name: 'remind',
  description: 'Remind yourself of something, here or by direct message',
  ephemeral: true,
  options: [
    {
      name: 'when',
      description: 'in 20 minutes, tomorrow 9am, next Monday 10:00, every weekday at 9 (your time zone)',
      type: 'string',
      required: true,
      maxLength: WHEN_CHARS,
    },
    { name: 'what', description: 'What to remind you of', type: 'string', required: true, maxLength: REMINDER_CHARS },
    { name: 'dm', description: 'Remind you by direct message instead of here', type: 'boolean' },
  ],
  async run(ctx, services) {
    const request = { when: stringOption(ctx, 'when') ?? '', what: stringOption(ctx, 'what') ?? '', direct: booleanOption(ctx, 'dm') ?? false };
    const schedule = await newReminder(ctx, services, request);
    await ctx.reply(confirmation(schedule, ctx), { ephemeral: true });
  },
};
