import { HeraldError } from '../src/errors.ts';
import type { Schedule, ScheduleActor, ScheduleTarget } from '../src/schedules/schedule.ts';
import type { ScheduleService } from '../src/schedules/schedule-service.ts';
import type { UserTimezones, ZoneSubject } from '../src/schedules/user-timezones.ts';
import { formatWhen } from '../src/schedules/zone-time.ts';
import type { CommandServices, InvocationContext } from './command.ts';

/** The schedule service and time zones, or a refusal where the entry point runs no scheduler. */
export function scheduling(services: Pick<CommandServices, 'schedules' | 'timezones'>): { schedules: ScheduleService; timezones: UserTimezones } {
  const { schedules, timezones } = services;
  if (!schedules || !timezones) throw new HeraldError('Reminders and schedules are not available here.', { code: 'no_scheduler' });
  return { schedules, timezones };
}

/** Who manages schedules from this invocation. */
export function actorOf(ctx: InvocationContext): ScheduleActor {
  return {
    platform: ctx.platform,
    ...(ctx.workspaceId !== undefined && { workspaceId: ctx.workspaceId }),
    userId: ctx.user.id,
    isAdmin: ctx.user.isAdmin,
  };
}

/** The zone the invoking user reads times in: their own choice, the platform's, their workspace's, then TZ. */
export function zoneOf(ctx: Pick<InvocationContext, 'platform' | 'workspaceId' | 'user'>, timezones: UserTimezones): Promise<string> {
  return timezones.resolve(zoneSubject(ctx));
}

/** Whose zone times the user gives are read in. */
export function zoneSubject(ctx: Pick<InvocationContext, 'platform' | 'workspaceId' | 'user'>): ZoneSubject {
  return {
    platform: ctx.platform,
    userId: ctx.user.id,
    ...(ctx.workspaceId !== undefined && { workspaceId: ctx.workspaceId }),
    ...(ctx.user.timezone !== undefined && { platformZone: ctx.user.timezone }),
  };
}

/** Where the user is looking from: a channel, and the thread in it. */
type Here = Pick<InvocationContext, 'channelId' | 'threadId'>;

/** Where a run posts, as seen from where the command was run; `owner` names whose direct messages, when not the viewer's. */
function placeOf(target: ScheduleTarget, ctx: Here, owner?: string): string {
  if (target.type === 'direct') return owner === undefined ? 'in your direct messages' : `in ${owner}'s direct messages`;
  const id = target.threadId ?? target.channelId;
  if (id === (ctx.threadId ?? ctx.channelId)) return 'here';
  return `in <#${id}>`;
}

/** When it runs next, read in `zone` at `now`: the next occurrence, or that it is paused. */
function nextOf(schedule: Schedule, zone: string, now: number): string {
  if (schedule.state === 'paused') return 'paused';
  return schedule.nextRunAt === null ? 'done' : `next ${formatWhen(schedule.nextRunAt, zone, now)}`;
}

const KIND_MARK: Record<Schedule['kind'], string> = { reminder: '⏰', prompt: '💬', summary: '📰' };
const TEXT_CHARS = 80;

/**
 * One schedule in a list: its id to name it by, what, when and where. Its next time is read in `zone`, the viewer's;
 * a timetable set in another zone says which.
 */
export function scheduleLine(schedule: Schedule, ctx: InvocationContext, zone: string): string {
  const text = schedule.text.length > TEXT_CHARS ? `${schedule.text.slice(0, TEXT_CHARS - 1)}…` : schedule.text;
  const what =
    schedule.kind === 'summary' && schedule.source ? `summary of <#${schedule.source.threadId ?? schedule.source.channelId}>` : `“${text}”`;
  const mine = schedule.creator.id === ctx.user.id;
  const owner = mine ? '' : ` · by ${schedule.creator.displayName}`;
  const elsewhere = schedule.timezone === zone ? '' : ` (${schedule.timezone})`;
  const recurring = schedule.timing.type === 'recurring' ? `${schedule.when}${elsewhere} · ` : '';
  return `\`${schedule.id}\` ${KIND_MARK[schedule.kind]} ${what} · ${recurring}${nextOf(schedule, zone, Date.now())} · ${placeOf(schedule.target, ctx, mine ? undefined : schedule.creator.displayName)}${owner}`;
}

/** What a user is told once a schedule is set: when it runs (in their zone, the one it was set in), where, and its id. */
export function confirmation(schedule: Schedule, ctx: Here): string {
  const next = nextOf(schedule, schedule.timezone, schedule.createdAt);
  const when = schedule.timing.type === 'recurring' ? `${schedule.when}, ${next}` : next.replace(/^next /, '');
  return `${KIND_MARK[schedule.kind]} Set: ${when}, ${placeOf(schedule.target, ctx)}. Its id is \`${schedule.id}\` (to pause or delete it).`;
}
