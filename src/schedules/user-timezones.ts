import { isTimeZone } from '../config/config.ts';
import type { Store } from '../store/store.ts';
import { ScheduleError } from './schedule-error.ts';

/** Longest zone name read (the longest IANA name is about 30 characters). */
const MAX_ZONE_CHARS = 64;

/** The canonical spelling of a zone a user typed ("europe/berlin" → "Europe/Berlin"); ScheduleError when unknown. */
export function canonicalZone(zone: string): string {
  const trimmed = zone.trim();
  if (trimmed.length > MAX_ZONE_CHARS || !isTimeZone(trimmed)) {
    throw new ScheduleError(
      `"${trimmed.slice(0, MAX_ZONE_CHARS)}" is not a time zone I know: use a name like Europe/Berlin or America/New_York.`,
      'bad_zone',
    );
  }
  return new Intl.DateTimeFormat('en-US', { timeZone: trimmed }).resolvedOptions().timeZone;
}

/** Whose zone to read a time in: the user, their workspace, and the zone their platform reports for them, if any. */
export interface ZoneSubject {
  platform: string;
  userId: string;
  workspaceId?: string;
  /** The user's zone as the platform has it (Slack's users.info `tz`). */
  platformZone?: string;
}

/**
 * Time zones people and workspaces chose, kept in the store. A user's own choice wins, then the zone their platform
 * reports, then their workspace's, then the deployment's TZ.
 */
export class UserTimezones {
  readonly #store: Store;
  readonly #fallback: string;

  constructor(store: Store, fallback: string) {
    this.#store = store;
    this.#fallback = fallback;
  }

  async resolve(subject: ZoneSubject): Promise<string> {
    return (await this.explain(subject)).zone;
  }

  /** The zone `resolve` gives, and which of the choices above it came from. */
  async explain(subject: ZoneSubject): Promise<{ zone: string; from: 'user' | 'platform' | 'workspace' | 'default' }> {
    const own = await this.#store.get<string>(userKey(subject.platform, subject.userId));
    if (own) return { zone: own, from: 'user' };
    if (subject.platformZone && subject.platformZone.length <= MAX_ZONE_CHARS && isTimeZone(subject.platformZone)) {
      return { zone: subject.platformZone, from: 'platform' };
    }
    if (subject.workspaceId !== undefined) {
      const workspace = await this.#store.get<string>(workspaceKey(subject.platform, subject.workspaceId));
      if (workspace) return { zone: workspace, from: 'workspace' };
    }
    return { zone: this.#fallback, from: 'default' };
  }

  /** Stores the user's zone (null forgets it); returns the canonical name stored. */
  setUserZone(platform: string, userId: string, zone: string | null): Promise<string | null> {
    return this.#put(userKey(platform, userId), zone);
  }

  /** Stores the workspace's zone (null forgets it), the default of its members who chose none. */
  setWorkspaceZone(platform: string, workspaceId: string, zone: string | null): Promise<string | null> {
    return this.#put(workspaceKey(platform, workspaceId), zone);
  }

  async #put(key: string, zone: string | null): Promise<string | null> {
    if (zone === null) {
      await this.#store.delete(key);
      return null;
    }
    const canonical = canonicalZone(zone);
    await this.#store.set(key, canonical);
    return canonical;
  }
}

function userKey(platform: string, userId: string): string {
  return `timezone:${platform}:user:${userId}`;
}

function workspaceKey(platform: string, workspaceId: string): string {
  return `timezone:${platform}:workspace:${workspaceId}`;
}
