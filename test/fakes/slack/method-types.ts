import type { FileHost } from './file-host.ts';
import type { RateLimiter } from './rate-limits.ts';
import type { Json, SlackChannel, Workspace } from './state.ts';

/** What Web API method handlers may reach of the running fake. */
export interface FakeCore {
  readonly ws: Workspace;
  readonly botToken: string;
  readonly appToken: string;
  readonly scopes: string[];
  readonly streamLifetimeMs: number;
  readonly rateLimiter: RateLimiter;
  readonly files: FileHost;
  /** Mints a single-use Socket Mode URL (apps.connections.open). */
  issueSocketUrl(): string;
}

export type TokenKind = 'bot' | 'app';

export interface MethodCall {
  core: FakeCore;
  args: Json;
  token: string;
}

/** A handler returns the response body; failures are {ok:false, error} just as Slack sends them (HTTP 200). */
export type MethodHandler = (call: MethodCall) => Json | Promise<Json>;

export interface MethodSpec {
  token: TokenKind;
  /** The scope the method needs, or a function of the call when it depends on the conversation type. */
  scope?: string | ((call: MethodCall) => string | undefined);
  /** The argument naming the channel, for chat.postMessage's per-channel limit and logs. */
  channelArg?: string;
  handler: MethodHandler;
}

export function fail(error: string, extra: Json = {}): Json {
  return { ok: false, error, ...extra };
}

export function failWithMessages(error: string, messages: string[] | undefined): Json {
  return messages ? fail(error, { response_metadata: { messages } }) : fail(error);
}

export function missingArgument(name: string): Json {
  return fail('invalid_arguments', { response_metadata: { messages: [`[ERROR] missing required field: ${name}`] } });
}

export function stringArg(args: Json, name: string): string | undefined {
  const value = args[name];
  if (value === undefined || value === null || value === '') return undefined;
  return String(value);
}

export function boolArg(args: Json, name: string): boolean {
  const value = args[name];
  return value === true || value === 'true' || value === '1' || value === 1;
}

/** Resolves a conversation by id; chat.postMessage also takes a user id (their DM) or a channel name. */
export function resolveChannel(core: FakeCore, ref: string, { allowNamesAndUsers = false } = {}): SlackChannel | undefined {
  const byId = core.ws.channels.get(ref);
  if (byId || !allowNamesAndUsers) return byId;
  if (/^[UW][A-Z0-9]+$/.test(ref) && core.ws.users.has(ref)) {
    const dm = [...core.ws.channels.values()].find((c) => c.is_im && c.user === ref);
    return dm ?? core.ws.addChannel({ user: ref });
  }
  const name = ref.replace(/^#/, '');
  return [...core.ws.channels.values()].find((c) => c.name === name);
}

export function historyScope(channel: SlackChannel | undefined): string | undefined {
  if (!channel) return undefined;
  if (channel.is_im) return 'im:history';
  if (channel.is_mpim) return 'mpim:history';
  return channel.is_private ? 'groups:history' : 'channels:history';
}

export function readScope(channel: SlackChannel | undefined): string | undefined {
  if (!channel) return undefined;
  if (channel.is_im) return 'im:read';
  if (channel.is_mpim) return 'mpim:read';
  return channel.is_private ? 'groups:read' : 'channels:read';
}

export const TS_PATTERN = /^\d{1,12}\.\d{1,6}$/;

/** A helper's answer: the value it looked for, or the refusal to send back as is. */
export type Outcome<T> = { value: T } | { failure: Json };
