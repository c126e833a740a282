import { DiscordAPIError, RESTJSONErrorCodes, type Client } from 'discord.js';
import type { DiscordAccess } from '../../src/config/config.ts';

/** Where a message or command comes from, for the operator's allow and deny lists. */
export interface AccessSubject {
  /** Absent in direct messages, which the lists do not restrict (DirectMessageAccess decides those). */
  guildId?: string;
  /** The channel, and for a thread also its parent. */
  channelIds: string[];
  /** The roles of the member writing. */
  roleIds: string[];
}

function passes(allow: string[], deny: string[], ids: string[]): boolean {
  if (ids.some((id) => deny.includes(id))) return false;
  return allow.length === 0 || ids.some((id) => allow.includes(id));
}

/** Whether Herald may answer there: every list must pass; a deny entry wins over an allow entry. */
export function isAllowed(access: DiscordAccess | undefined, subject: AccessSubject): boolean {
  if (!access || subject.guildId === undefined) return true;
  return (
    passes(access.allowGuilds, access.denyGuilds, [subject.guildId]) &&
    passes(access.allowChannels, access.denyChannels, subject.channelIds) &&
    passes(access.allowRoles, access.denyRoles, subject.roleIds)
  );
}

/** The servers Herald is in, and a user's roles in one of them. */
export interface MemberDirectory {
  guildIds(): string[];
  /** The user's roles there; undefined when they are not a member. */
  rolesOf(guildId: string, userId: string): Promise<string[] | undefined>;
}

export function discordMemberDirectory(client: Client): MemberDirectory {
  return {
    guildIds: () => [...client.guilds.cache.keys()],
    async rolesOf(guildId, userId) {
      const guild = client.guilds.cache.get(guildId);
      if (!guild) return undefined;
      try {
        return [...(await guild.members.fetch(userId)).roles.cache.keys()];
      } catch (error) {
        if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMember) return undefined;
        throw error;
      }
    },
  };
}

const CACHE_TTL_MS = 10 * 60_000;
const CACHE_MAX_USERS = 10_000;

/**
 * Who may talk to Herald in direct messages. With DISCORD_DMS=members, only members who pass the server and role
 * lists in a server Herald is in; a user's answer is cached for ten minutes (a failed look-up is not).
 */
export class DirectMessageAccess {
  readonly #access: DiscordAccess | undefined;
  readonly #directory: MemberDirectory;
  readonly #now: () => number;
  readonly #cache = new Map<string, { until: number; allowed: Promise<boolean> }>();

  constructor(access: DiscordAccess | undefined, directory: MemberDirectory, now: () => number = Date.now) {
    this.#access = access;
    this.#directory = directory;
    this.#now = now;
  }

  allows(userId: string): Promise<boolean> {
    const access = this.#access;
    if (access?.directMessages !== 'members') return Promise.resolve(true);
    const cached = this.#cache.get(userId);
    if (cached && cached.until > this.#now()) return cached.allowed;
    this.#cache.delete(userId);
    if (this.#cache.size >= CACHE_MAX_USERS) this.#cache.delete(this.#cache.keys().next().value!);
    const entry = {
      until: this.#now() + CACHE_TTL_MS,
      allowed: this.#lookUp(access, userId).catch(() => {
        if (this.#cache.get(userId) === entry) this.#cache.delete(userId);
        return false;
      }),
    };
    this.#cache.set(userId, entry);
    return entry.allowed;
  }

  async #lookUp(access: DiscordAccess, userId: string): Promise<boolean> {
    const guilds = this.#directory.guildIds().filter((guildId) => passes(access.allowGuilds, access.denyGuilds, [guildId]));
    for (const guildId of guilds) {
      const roles = await this.#directory.rolesOf(guildId, userId);
      if (roles && passes(access.allowRoles, access.denyRoles, roles)) return true;
    }
    return false;
  }
}

const perClient = new WeakMap<Client, DirectMessageAccess>();

/** The client's one DirectMessageAccess, so its message and command handlers share the cached look-ups. */
export function directMessageAccess(client: Client, access: DiscordAccess | undefined): DirectMessageAccess {
  let gate = perClient.get(client);
  if (!gate) {
    gate = new DirectMessageAccess(access, discordMemberDirectory(client));
    perClient.set(client, gate);
  }
  return gate;
}
