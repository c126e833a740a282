import { setTimeout as delay } from 'node:timers/promises';
import type { Store } from '../store/store.ts';
import type { Schedule } from './schedule.ts';
import { ScheduleError } from './schedule-error.ts';

/** The sorted set of a platform's active schedules by their next occurrence: what its schedulers read. */
function dueIndex(platform: string): string {
  return `schedules:due:${platform}`;
}
/** How long a change may hold a schedule (a holder that died frees it after this), and how often a waiting one looks. */
const EDIT_LOCK_MS = 5000;
const EDIT_RETRY_MS = 20;
/** Most schedules one listing returns (and one user or workspace may have). */
export const LIST_LIMIT = 200;

/**
 * Schedules in the store: each record under its id, in the due index while active, and in the indexes of its
 * creator and workspace (scored by creation) for listing. Changes of one schedule take turns under a short lock, so
 * a pause never races a run's bookkeeping.
 */
export class ScheduleRecords {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  get(id: string): Promise<Schedule | undefined> {
    return this.#store.get<Schedule>(recordKey(id));
  }

  /** Stores a new schedule and files it in the indexes. */
  async save(schedule: Schedule): Promise<void> {
    await this.#put(schedule);
    await this.#store.sortedAdd(creatorIndex(schedule.platform, schedule.creator.id), schedule.id, schedule.createdAt);
    await this.#store.sortedAdd(workspaceIndex(schedule.platform, schedule.workspaceId), schedule.id, schedule.createdAt);
  }

  async remove(schedule: Schedule): Promise<void> {
    await this.#store.sortedRemove(dueIndex(schedule.platform), schedule.id);
    await this.#store.sortedRemove(creatorIndex(schedule.platform, schedule.creator.id), schedule.id);
    await this.#store.sortedRemove(workspaceIndex(schedule.platform, schedule.workspaceId), schedule.id);
    await this.#store.delete(recordKey(schedule.id));
  }

  /**
   * Applies `change` to the schedule as it is now, alone among changes of it; `change` returns the schedule to keep,
   * or null to delete it. Resolves to what was stored (null once deleted), or undefined when there is no such schedule.
   */
  async update(id: string, change: (schedule: Schedule) => Schedule | null): Promise<Schedule | null | undefined> {
    const key = `schedule-edit:${id}`;
    const giveUpAt = performance.now() + EDIT_LOCK_MS + EDIT_RETRY_MS;
    let token = await this.#store.acquireLock(key, EDIT_LOCK_MS);
    while (token === null) {
      if (performance.now() > giveUpAt) throw new ScheduleError('That schedule is being changed right now; try again in a moment.', 'unavailable');
      await delay(EDIT_RETRY_MS);
      token = await this.#store.acquireLock(key, EDIT_LOCK_MS);
    }
    try {
      const schedule = await this.get(id);
      if (!schedule) return undefined;
      const changed = change(schedule);
      if (changed === null) await this.remove(schedule);
      else await this.#put(changed);
      return changed;
    } finally {
      await this.#store.releaseLock(key, token);
    }
  }

  /** Schedules of one creator, oldest first. */
  byCreator(platform: string, userId: string): Promise<Schedule[]> {
    return this.#load(creatorIndex(platform, userId));
  }

  /** Schedules of a workspace (or of direct messages, without one), oldest first. */
  byWorkspace(platform: string, workspaceId: string | undefined): Promise<Schedule[]> {
    return this.#load(workspaceIndex(platform, workspaceId));
  }

  async countByCreator(platform: string, userId: string): Promise<number> {
    return (await this.#store.sortedUpTo(creatorIndex(platform, userId), Infinity, LIST_LIMIT)).length;
  }

  async countByWorkspace(platform: string, workspaceId: string | undefined): Promise<number> {
    return (await this.#store.sortedUpTo(workspaceIndex(platform, workspaceId), Infinity, LIST_LIMIT)).length;
  }

  /** A platform's active schedules due by `time` (their id and occurrence), soonest first. */
  async dueBy(platform: string, time: number, limit: number): Promise<Array<{ id: string; dueAt: number }>> {
    return (await this.#store.sortedUpTo(dueIndex(platform), time, limit)).map(({ member, score }) => ({ id: member, dueAt: score }));
  }

  /** Takes an id out of a platform's due index (its record is gone). */
  async forgetDue(platform: string, id: string): Promise<void> {
    await this.#store.sortedRemove(dueIndex(platform), id);
  }

  /** Stores a schedule's record and its place in the due index; its creator and workspace never change. */
  async #put(schedule: Schedule): Promise<void> {
    await this.#store.set(recordKey(schedule.id), schedule);
    await this.#fileDue(schedule);
  }

  async #fileDue(schedule: Schedule): Promise<void> {
    const due = dueIndex(schedule.platform);
    if (schedule.state === 'active' && schedule.nextRunAt !== null) await this.#store.sortedAdd(due, schedule.id, schedule.nextRunAt);
    else await this.#store.sortedRemove(due, schedule.id);
  }

  async #load(index: string): Promise<Schedule[]> {
    const members = await this.#store.sortedUpTo(index, Infinity, LIST_LIMIT);
    const found = await Promise.all(members.map(({ member }) => this.get(member)));
    return found.filter((s): s is Schedule => s !== undefined);
  }
}

function recordKey(id: string): string {
  return `schedule:${id}`;
}

function creatorIndex(platform: string, userId: string): string {
  return `schedules:creator:${platform}:${userId}`;
}

function workspaceIndex(platform: string, workspaceId: string | undefined): string {
  return `schedules:workspace:${platform}:${workspaceId ?? '-'}`;
}
