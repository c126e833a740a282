import { TsClock, compareTs as compareTsStrings, slackId, tsAt } from './ids.ts';

export type Json = Record<string, unknown>;

export interface SlackUser {
  id: string;
  team_id: string;
  name: string;
  real_name: string;
  is_bot: boolean;
  deleted: boolean;
  tz: string;
  tz_offset: number;
  profile: Json;
  /** The user's language (IETF tag, e.g. `fr-FR`); users.info shows it only with include_locale. */
  locale?: string;
}

export interface SlackChannel {
  id: string;
  name?: string;
  is_channel: boolean;
  is_group: boolean;
  is_im: boolean;
  is_mpim: boolean;
  is_private: boolean;
  is_archived: boolean;
  /** Whether the bot user is a member: posting into a channel it is not in fails with not_in_channel. */
  is_member: boolean;
  created: number;
  /** The other party of a DM. */
  user?: string;
}

/** A file Slack hosts: its API object plus the bytes behind url_private. */
export interface StoredFile {
  file: Json & { id: string; name: string; mimetype: string };
  bytes: Buffer;
  /** False between files.getUploadURLExternal and the POST of its bytes. */
  uploaded: boolean;
  /** False until files.completeUploadExternal (bot uploads) — user files are complete when injected. */
  completed: boolean;
  declaredLength?: number;
}

export interface TaskState {
  id: string;
  title: string;
  status: string;
  details: string;
  output?: string;
  sources?: unknown[];
}

export interface StreamState {
  state: 'streaming' | 'stopped' | 'stopped_by_user';
  /** A stream is locked to the shape of its first content: markdown_text or chunks. */
  mode?: 'markdown_text' | 'chunks';
  startedAt: number;
  stoppedAt?: number;
  recipientUserId?: string;
  recipientTeamId?: string;
  taskDisplayMode?: string;
  /** Every call's content in order, for assertions about how a reply was streamed. */
  calls: Array<{ method: string; markdown_text?: string; chunks?: unknown[]; at: number }>;
  tasks: TaskState[];
  planTitle?: string;
}

export interface MessageVersion {
  at: number;
  text: string;
  blocks?: unknown[];
}

export interface StoredMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  team?: string;
  text: string;
  blocks?: unknown[];
  attachments?: unknown[];
  /** Ids of hosted files shared with this message. */
  fileIds: string[];
  metadata?: Json;
  reactions: Array<{ name: string; users: string[] }>;
  /** Text/blocks after each chat.update (first entry is the original post). */
  versions: MessageVersion[];
  edited?: { user: string; ts: string };
  stream?: StreamState;
  client_msg_id?: string;
  extra: Json;
}

export interface AssistantThreadState {
  status: string;
  loadingMessages?: string[];
  statusHistory: Array<{ status: string; loading_messages?: string[]; at: number; clearedByReply?: boolean }>;
  title?: string;
  suggestedPrompts?: { title?: string; prompts: unknown[] };
}

/** Another app's bot in the workspace: its bot user posts messages (and shares files) with bot_id and app_id. */
export interface OtherBot {
  userId: string;
  botId: string;
  appId: string;
  name: string;
}

export interface WorkspaceIdentity {
  teamId: string;
  teamName: string;
  teamDomain: string;
  appId: string;
  botUserId: string;
  botId: string;
  botName: string;
}

/** Everything the fake workspace holds: people, conversations, messages, files, assistant threads. */
export class Workspace {
  readonly identity: WorkspaceIdentity;
  readonly clock = new TsClock();
  readonly users = new Map<string, SlackUser>();
  readonly channels = new Map<string, SlackChannel>();
  readonly files = new Map<string, StoredFile>();
  /** Files their owner deleted: messages that shared them show a tombstone, files.info answers file_deleted. */
  readonly deletedFileIds = new Set<string>();
  readonly bots = new Map<string, OtherBot>();
  readonly deletedMessages: StoredMessage[] = [];
  readonly assistantThreads = new Map<string, AssistantThreadState>();
  readonly #messages = new Map<string, Map<string, StoredMessage>>();
  /** Channels whose members were set; any other has every person of the workspace (and the bot when is_member). */
  readonly #members = new Map<string, string[]>();

  constructor(identity: WorkspaceIdentity) {
    this.identity = identity;
    this.addUser({ id: identity.botUserId, name: identity.botName, is_bot: true });
  }

  addUser(user: Partial<SlackUser> & { name: string }): SlackUser {
    const id = user.id ?? slackId('U');
    const realName = user.real_name ?? user.name;
    const full: SlackUser = {
      id,
      team_id: this.identity.teamId,
      name: user.name,
      real_name: realName,
      is_bot: user.is_bot ?? false,
      deleted: user.deleted ?? false,
      tz: user.tz ?? 'Europe/London',
      tz_offset: user.tz_offset ?? 0,
      profile: {
        real_name: realName,
        display_name: user.name,
        real_name_normalized: realName,
        display_name_normalized: user.name,
        image_72: `https://avatars.example.invalid/${id}_72.png`,
        team: this.identity.teamId,
        ...(user.is_bot ? { bot_id: this.identity.botId, api_app_id: this.identity.appId } : {}),
        ...user.profile,
      },
    };
    this.users.set(id, full);
    return full;
  }

  /** Another app installed in the workspace, with its own bot user. */
  addBot(name: string): OtherBot {
    const bot: OtherBot = { userId: slackId('U'), botId: slackId('B'), appId: slackId('A'), name };
    this.addUser({ id: bot.userId, name, is_bot: true, profile: { bot_id: bot.botId, api_app_id: bot.appId } });
    this.bots.set(bot.botId, bot);
    return bot;
  }

  /** The owner deletes a file: its bytes are gone and every message that shared it keeps only a tombstone. */
  deleteFile(id: string): void {
    if (this.files.delete(id)) this.deletedFileIds.add(id);
  }

  addChannel(channel: Partial<SlackChannel> & ({ name: string } | { user: string })): SlackChannel {
    const isIm = channel.is_im ?? channel.user !== undefined;
    const full: SlackChannel = {
      id: channel.id ?? slackId(isIm ? 'D' : channel.is_private ? 'G' : 'C'),
      is_channel: !isIm && !(channel.is_private ?? false),
      is_group: !isIm && (channel.is_private ?? false),
      is_im: isIm,
      is_mpim: channel.is_mpim ?? false,
      is_private: isIm || (channel.is_private ?? false),
      is_archived: channel.is_archived ?? false,
      is_member: channel.is_member ?? true,
      created: channel.created ?? Math.floor(Date.now() / 1000),
      ...('name' in channel && channel.name !== undefined ? { name: channel.name } : {}),
      ...(isIm ? { user: channel.user } : {}),
    };
    this.channels.set(full.id, full);
    return full;
  }

  setMembers(channel: string, userIds: string[]): void {
    this.#members.set(channel, [...userIds]);
  }

  /** The conversation's members as conversations.members lists them: people and bot users, in the order they joined. */
  membersOf(channel: SlackChannel): string[] {
    if (channel.is_im) return [channel.user!, this.identity.botUserId];
    const set = this.#members.get(channel.id);
    const members = set ?? [...this.users.values()].filter((u) => !u.is_bot && !u.deleted).map((u) => u.id);
    return channel.is_member && !members.includes(this.identity.botUserId) ? [...members, this.identity.botUserId] : members;
  }

  #channelMessages(channel: string): Map<string, StoredMessage> {
    let map = this.#messages.get(channel);
    if (!map) {
      map = new Map();
      this.#messages.set(channel, map);
    }
    return map;
  }

  /** Adds a message, keeping the thread parent's reply bookkeeping the way Slack reports it. */
  insertMessage(message: StoredMessage): StoredMessage {
    const map = this.#channelMessages(message.channel);
    const existing = map.get(message.ts);
    if (existing) return existing;
    map.set(message.ts, message);
    if (message.thread_ts && message.thread_ts !== message.ts) {
      const parent = map.get(message.thread_ts);
      if (parent && !parent.thread_ts) parent.thread_ts = parent.ts;
      const thread = this.assistantThreads.get(threadKey(message.channel, message.thread_ts));
      // Slack clears an assistant thread's status when the app replies in it.
      if (thread && thread.status !== '' && message.user === this.identity.botUserId) {
        thread.status = '';
        thread.statusHistory.push({ status: '', at: Date.now(), clearedByReply: true });
      }
    }
    return message;
  }

  /**
   * A channel's past messages put in at once, without events, fast enough for thousands: each ts is made from its
   * time (`at`, ms), a microsecond later than the one before when two share a millisecond.
   */
  seedHistory(channel: string, entries: ReadonlyArray<{ user: string; text: string; at: number }>): StoredMessage[] {
    let last = '';
    return entries.map((entry) => {
      let ts = tsAt(entry.at);
      if (last !== '' && compareTsStrings(ts, last) <= 0) ts = tsAfter(last);
      last = ts;
      return this.insertMessage({
        channel,
        ts,
        user: entry.user,
        team: this.identity.teamId,
        text: entry.text,
        fileIds: [],
        reactions: [],
        versions: [{ at: entry.at, text: entry.text }],
        extra: {},
      });
    });
  }

  findMessage(channel: string, ts: string): StoredMessage | undefined {
    return this.#messages.get(channel)?.get(ts);
  }

  /** Deletes a message; a tombstone whose last reply this was goes with it, as in Slack. */
  removeMessage(channel: string, ts: string): StoredMessage | undefined {
    const map = this.#messages.get(channel);
    const message = map?.get(ts);
    if (!map || !message) return undefined;
    map.delete(ts);
    this.deletedMessages.push(message);
    const parent = message.thread_ts && message.thread_ts !== ts ? map.get(message.thread_ts) : undefined;
    if (parent?.subtype === 'tombstone' && this.replies(channel, parent.ts).length === 0) this.removeMessage(channel, parent.ts);
    return message;
  }

  /** A thread parent deleted while it has replies: Slack keeps its place as a tombstone until its last reply goes. */
  tombstone(message: StoredMessage): void {
    message.subtype = 'tombstone';
    message.text = 'This message was deleted.';
    message.user = 'USLACKBOT';
    delete message.blocks;
    delete message.client_msg_id;
    delete message.team;
    message.fileIds = [];
    message.extra = { ...message.extra, hidden: true };
  }

  /** Every message in a channel, replies included, oldest first. */
  allMessages(channel: string): StoredMessage[] {
    return [...this.#channelMessages(channel).values()].sort(compareTs);
  }

  /** What channel history shows: top-level messages (thread parents included), oldest first. */
  topLevel(channel: string): StoredMessage[] {
    return this.allMessages(channel).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
  }

  /** Replies in a thread, oldest first, without the parent. */
  replies(channel: string, threadTs: string): StoredMessage[] {
    return this.allMessages(channel).filter((m) => m.thread_ts === threadTs && m.ts !== threadTs);
  }

  assistantThread(channel: string, threadTs: string): AssistantThreadState {
    const key = threadKey(channel, threadTs);
    let thread = this.assistantThreads.get(key);
    if (!thread) {
      thread = { status: '', statusHistory: [] };
      this.assistantThreads.set(key, thread);
    }
    return thread;
  }

  /** The bot_profile Slack attaches to a bot's message: Herald's own, or another app's bot's. */
  botProfile(botId = this.identity.botId): Json {
    const other = this.bots.get(botId);
    return {
      id: botId,
      app_id: other?.appId ?? this.identity.appId,
      user_id: other?.userId ?? this.identity.botUserId,
      name: other?.name ?? this.identity.botName,
      icons: { image_36: 'https://avatars.example.invalid/bot_36.png' },
      deleted: false,
      updated: 1700000000,
      team_id: this.identity.teamId,
    };
  }

  /** A message as the Web API and Events API present it. */
  render(message: StoredMessage, options: { includeMetadata?: boolean } = {}): Json {
    const out: Json = { type: 'message' };
    if (message.subtype) out.subtype = message.subtype;
    out.text = message.text;
    if (message.user) out.user = message.user;
    if (message.bot_id) {
      out.bot_id = message.bot_id;
      out.app_id = message.app_id;
      out.bot_profile = this.botProfile(message.bot_id);
    }
    out.ts = message.ts;
    if (message.team) out.team = message.team;
    if (message.client_msg_id) out.client_msg_id = message.client_msg_id;
    if (message.blocks) out.blocks = message.blocks;
    if (message.attachments) out.attachments = message.attachments;
    if (message.fileIds.length > 0) {
      out.files = message.fileIds.map((id) => this.files.get(id)?.file ?? { id, mode: 'tombstone' });
      out.upload = message.bot_id !== undefined;
      out.display_as_bot = false;
    }
    if (message.edited) out.edited = message.edited;
    if (message.thread_ts) {
      out.thread_ts = message.thread_ts;
      if (message.thread_ts === message.ts) {
        const replies = this.replies(message.channel, message.ts);
        const replyUsers = [...new Set(replies.map((r) => r.user).filter((u): u is string => u !== undefined))];
        out.reply_count = replies.length;
        out.reply_users_count = replyUsers.length;
        out.reply_users = replyUsers;
        out.latest_reply = replies.at(-1)?.ts ?? message.ts;
        out.is_locked = false;
      } else {
        const parent = this.findMessage(message.channel, message.thread_ts);
        if (parent?.user) out.parent_user_id = parent.user;
      }
    }
    if (message.reactions.length > 0) {
      out.reactions = message.reactions.map((r) => ({ name: r.name, users: r.users, count: r.users.length }));
    }
    if (options.includeMetadata && message.metadata) out.metadata = message.metadata;
    return { ...out, ...message.extra };
  }
}

/** The ts one microsecond after `ts`. */
function tsAfter(ts: string): string {
  const [seconds = '0', micros = '0'] = ts.split('.');
  const next = (BigInt(seconds) * 1_000_000n + BigInt(micros.padEnd(6, '0')) + 1n).toString().padStart(7, '0');
  return `${next.slice(0, -6)}.${next.slice(-6)}`;
}

export function threadKey(channel: string, threadTs: string): string {
  return `${channel}:${threadTs}`;
}

function compareTs(a: StoredMessage, b: StoredMessage): number {
  return compareTsStrings(a.ts, b.ts);
}
