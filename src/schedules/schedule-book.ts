import { randomInt } from 'node:crypto';
import { nextOccurrence, parseWhen } from './parse-when.ts';
import type { NewSchedule, Schedule, ScheduleActor } from './schedule.ts';
import type { RunAccess } from './schedule-delivery.ts';
import { ScheduleError } from './schedule-error.ts';
import { LIST_LIMIT, type ScheduleRecords } from './schedule-records.ts';
import type { ScheduleService } from './schedule-service.ts';
import { canonicalZone } from './user-timezones.ts';

/** Most schedules one person may have. */
export const MAX_PER_CREATOR = 25;
/** Longest reminder text or prompt. */
export const MAX_SCHEDULE_TEXT = 2000;
const ID_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const ID_LENGTH = 6;

export interface BookDeps {
  records: ScheduleRecords;
  now: () => number;
  /** Something became due sooner: the scheduler looks again. */
  wake: () => void;
  /** The check a run makes where it posts, made at once (undefined when this instance cannot make it). */
  access: (schedule: Schedule) => Promise<RunAccess | undefined>;
  /** Runs a schedule once now (ScheduleError when this instance cannot). */
  runNow: (schedule: Schedule) => Promise<void>;
}

/** The commands' side of schedules: creating them, and managing them with members' and admins' rights. */
export class ScheduleBook implements ScheduleService {
  readonly #deps: BookDeps;

  constructor(deps: BookDeps) {
    this.#deps = deps;
  }

  async create(input: NewSchedule): Promise<Schedule> {
    const { records, now } = this.#deps;
    const text = input.text.trim();
    if (text.length > MAX_SCHEDULE_TEXT) throw new ScheduleError(`That is too long: at most ${MAX_SCHEDULE_TEXT} characters.`, 'invalid');
    if (text === '' && input.kind !== 'summary') throw new ScheduleError('Say what to remind you of, or what to ask.', 'invalid');
    if (input.kind === 'summary' && !input.source && input.target.type !== 'channel') {
      throw new ScheduleError('Name the channel to summarize.', 'invalid');
    }
    const timezone = canonicalZone(input.timezone);
    const createdAt = now();
    const when = parseWhen(input.when, { now: createdAt, timezone });
    if ((await records.countByCreator(input.platform, input.creator.id)) >= MAX_PER_CREATOR) {
      throw new ScheduleError(`You have ${MAX_PER_CREATOR} reminders and schedules already: delete one first.`, 'too_many');
    }
    if ((await records.countByWorkspace(input.platform, input.workspaceId)) >= LIST_LIMIT) {
      throw new ScheduleError(`This server has ${LIST_LIMIT} reminders and schedules already: an admin can delete some.`, 'too_many');
    }
    const schedule: Schedule = {
      id: await this.#newId(),
      kind: input.kind,
      platform: input.platform,
      ...(input.workspaceId !== undefined && { workspaceId: input.workspaceId }),
      creator: { id: input.creator.id, displayName: input.creator.displayName },
      target: input.target,
      text,
      ...(input.source && { source: input.source }),
      timing: when.type === 'once' ? { type: 'once', at: when.at } : { type: 'recurring', pattern: when.pattern },
      when: input.when.trim().replace(/\s+/g, ' '),
      timezone,
      state: 'active',
      nextRunAt: when.type === 'once' ? when.at : when.first,
      failures: 0,
      createdAt,
    };
    await this.#checkAccess(schedule, 'set that up');
    await records.save(schedule);
    this.#deps.wake();
    return schedule;
  }

  async list(actor: ScheduleActor, options: { all?: boolean } = {}): Promise<Schedule[]> {
    const { records } = this.#deps;
    const found =
      options.all && actor.isAdmin && actor.workspaceId !== undefined
        ? await records.byWorkspace(actor.platform, actor.workspaceId)
        : (await records.byCreator(actor.platform, actor.userId)).filter((s) => s.workspaceId === actor.workspaceId);
    return found.sort((a, b) => (a.nextRunAt ?? Infinity) - (b.nextRunAt ?? Infinity) || a.createdAt - b.createdAt);
  }

  async pause(id: string, actor: ScheduleActor): Promise<Schedule> {
    const { id: found } = await this.#manageable(id, actor);
    return this.#change(found, (s) => ({ ...s, state: 'paused' }));
  }

  async resume(id: string, actor: ScheduleActor): Promise<Schedule> {
    const schedule = await this.#manageable(id, actor);
    if (schedule.state === 'paused') await this.#checkAccess(schedule, 'resume it');
    const { id: found } = schedule;
    const now = this.#deps.now();
    const resumed = await this.#change(found, (s) => {
      if (s.state === 'active') return s;
      const next = s.timing.type === 'once' ? s.timing.at : nextOccurrence(s.timing.pattern, s.timezone, now);
      if (next === null || next <= now) throw new ScheduleError('Its time has passed: make a new one instead.', 'past');
      return { ...s, state: 'active', nextRunAt: next, failures: 0 };
    });
    this.#deps.wake();
    return resumed;
  }

  async delete(id: string, actor: ScheduleActor): Promise<Schedule> {
    const schedule = await this.#manageable(id, actor);
    await this.#deps.records.update(schedule.id, () => null);
    return schedule;
  }

  async run(id: string, actor: ScheduleActor): Promise<void> {
    await this.#deps.runNow(await this.#manageable(id, actor));
  }

  /** Refuses, now rather than at a run nobody watches, a schedule whose run could not go ahead where it posts. */
  async #checkAccess(schedule: Schedule, doing: string): Promise<void> {
    const access = await this.#deps.access(schedule);
    if (access && !access.allowed) throw new ScheduleError(`I can’t ${doing}: ${access.reason.replace(/\.$/, '')}.`, 'not_permitted');
  }

  /** The schedule when `actor` may manage it: their own, or any of their workspace's for its admin. */
  async #manageable(id: string, actor: ScheduleActor): Promise<Schedule> {
    const schedule = /^[a-z0-9]{1,16}$/.test(id.trim().toLowerCase()) ? await this.#deps.records.get(id.trim().toLowerCase()) : undefined;
    // Another workspace's schedules are not even said to exist.
    if (!schedule || schedule.platform !== actor.platform || schedule.workspaceId !== actor.workspaceId) {
      throw new ScheduleError(`There is no reminder or schedule "${id.slice(0, 20)}" here.`, 'not_found');
    }
    if (schedule.creator.id !== actor.userId && !(actor.isAdmin && actor.workspaceId !== undefined)) {
      throw new ScheduleError('Only its creator or an admin of this server can change that one.', 'not_permitted');
    }
    return schedule;
  }

  async #change(id: string, change: (schedule: Schedule) => Schedule): Promise<Schedule> {
    const changed = await this.#deps.records.update(id, change);
    if (!changed) throw new ScheduleError(`There is no reminder or schedule "${id.slice(0, 20)}" here.`, 'not_found');
    return changed;
  }

  async #newId(): Promise<string> {
    for (;;) {
      const id = Array.from({ length: ID_LENGTH }, () => ID_ALPHABET[randomInt(ID_ALPHABET.length)]).join('');
      if (!(await this.#deps.records.get(id))) return id;
    }
  }
}
