import type { SlackApi } from './slack-api.ts';
import type { SlackTextParts } from './incoming-text.ts';

export interface SlackPerson {
  id: string;
  displayName: string;
  isBot: boolean;
  /** Workspace admin or owner (users.info is_admin / is_owner / is_primary_owner). */
  isAdmin: boolean;
  /** Their IANA time zone as Slack has it (users.info `tz`). */
  timezone?: string;
}

interface UserRecord {
  id?: string;
  name?: string;
  real_name?: string;
  is_bot?: boolean;
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  tz?: string;
  profile?: { display_name?: string; real_name?: string };
}

const TTL_MS = 10 * 60_000;
const MAX_ENTRIES = 5000;
/** How long an answer waits for a name before it goes ahead with the user id. */
const NAME_WAIT_MS = 1000;

/** users.info with a short memory: names for mentions and speakers, admin rights for /settings. */
export class UserDirectory {
  readonly #api: SlackApi;
  readonly #cache = new Map<string, { at: number; person: Promise<SlackPerson> }>();
  readonly #ttlMs: number;

  constructor(api: SlackApi, ttlMs = TTL_MS) {
    this.#api = api;
    this.#ttlMs = ttlMs;
  }

  /** The person, or a stand-in named by the id when Slack cannot say (deleted user, missing scope). */
  get(id: string): Promise<SlackPerson> {
    const now = Date.now();
    const cached = this.#cache.get(id);
    if (cached && now - cached.at < this.#ttlMs) return cached.person;
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.delete(this.#cache.keys().next().value!);
    const person = this.#lookup(id);
    this.#cache.set(id, { at: now, person });
    person.catch(() => this.#cache.delete(id));
    return person;
  }

  /**
   * The person as soon as known, or the stand-in named by the id when users.info has not answered within
   * `waitMs` (its budget spent by many new users at once): an answer never waits long on a name. The lookup
   * goes on, so the next message has the name.
   */
  async named(id: string, waitMs = NAME_WAIT_MS): Promise<SlackPerson> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<SlackPerson>((resolve) => {
      timer = setTimeout(() => resolve(standIn(id)), waitMs);
    });
    try {
      return await Promise.race([this.get(id), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The text with each of its mentions shown as @name, as people read it (names waited for as `named` does). */
  async mentionsAsNames({ text, mentions }: SlackTextParts): Promise<string> {
    const names = await Promise.all(mentions.map((mention) => this.named(mention.id)));
    return mentions.reduce((done, mention, i) => done.split(mention.raw).join(`@${names[i]!.displayName}`), text);
  }

  /** Admin rights are read fresh: a demoted admin must lose /settings at once. */
  async isAdmin(id: string): Promise<boolean> {
    const response = await this.#api.call('users.info', undefined, (c) => c.users.info({ user: id }));
    const user = response.user as UserRecord | undefined;
    return Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner);
  }

  async #lookup(id: string): Promise<SlackPerson> {
    try {
      const response = await this.#api.call('users.info', undefined, (c) => c.users.info({ user: id }));
      return toPerson(id, response.user as UserRecord | undefined);
    } catch {
      return standIn(id);
    }
  }
}

function standIn(id: string): SlackPerson {
  return { id, displayName: id, isBot: false, isAdmin: false };
}

function toPerson(id: string, user: UserRecord | undefined): SlackPerson {
  const name = user?.profile?.display_name || user?.profile?.real_name || user?.real_name || user?.name || id;
  return {
    id,
    displayName: name,
    isBot: user?.is_bot ?? false,
    isAdmin: Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner),
    ...(user?.tz && { timezone: user.tz }),
  };
}
