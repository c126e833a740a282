/**
 * What a person does in Slack, turned into the events Slack sends. Each builder that posts a message also adds
 * it to the workspace, so conversations.history/replies see it as they would in Slack.
 */
import { randomUUID } from 'node:crypto';
import { eventId as newEventId, tsAt } from './ids.ts';
import type { Json, OtherBot, SlackChannel, StoredFile, StoredMessage, Workspace } from './state.ts';

export interface PostOptions {
  text: string;
  /** Author; defaults to the workspace's default human user. */
  user?: string;
  /** Conversation; defaults to the default channel (mentions) or the DM (direct messages). */
  channel?: string;
  /** Makes the message a reply in this thread. */
  thread_ts?: string;
}

export interface FileShareOptions extends Partial<PostOptions> {
  /** Files from uploadUserFile (or objects with their ids). */
  files: Array<StoredFile | { id: string }>;
}

export interface MentionOptions extends PostOptions {
  /** Files shared with the mention (from uploadUserFile): the event carries their objects, as a file share's does. */
  files?: Array<StoredFile | { id: string }>;
}

export interface BotPostOptions extends Omit<PostOptions, 'user'> {
  /** The app whose bot posts (from addBot). */
  bot: OtherBot;
  /** Files the bot uploaded (uploadUserFile with the bot's user) and shares with the message. */
  files?: Array<StoredFile | { id: string }>;
}

const idOf = (file: StoredFile | { id: string }) => ('bytes' in file ? file.file.id : file.id);

export interface AssistantThreadOptions {
  user?: string;
  /** The assistant DM; defaults to the user's DM with the bot. */
  channel?: string;
  /** Root of the assistant thread; a new one is created when omitted. */
  thread_ts?: string;
  /** The channel the user was viewing when they opened the assistant; `channel_id: null` when none (Slack sends no channel_id). */
  context?: { channel_id?: string | null; team_id?: string; enterprise_id?: string | null };
}

/** Splits message text into the rich_text block the Slack client sends alongside it. */
function richText(text: string): unknown[] {
  const elements: Json[] = [];
  const pattern = /<@([UW][A-Z0-9]+)>|<#([CGD][A-Z0-9]+)(?:\|[^>]*)?>|<(https?:\/\/[^|>]+)(?:\|([^>]*))?>/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) elements.push({ type: 'text', text: text.slice(last, match.index) });
    if (match[1]) elements.push({ type: 'user', user_id: match[1] });
    else if (match[2]) elements.push({ type: 'channel', channel_id: match[2] });
    else if (match[3]) elements.push({ type: 'link', url: match[3], ...(match[4] ? { text: match[4] } : {}) });
    last = match.index + match[0].length;
  }
  if (last < text.length) elements.push({ type: 'text', text: text.slice(last) });
  return [{ type: 'rich_text', block_id: randomUUID().slice(0, 5), elements: [{ type: 'rich_text_section', elements }] }];
}

export function channelType(channel: SlackChannel | undefined): string {
  if (!channel) return 'channel';
  if (channel.is_im) return 'im';
  if (channel.is_mpim) return 'mpim';
  return channel.is_private ? 'group' : 'channel';
}

export interface Defaults {
  userId: string;
  channelId: string;
  dmChannelId: string;
}

export class EventBuilders {
  readonly #ws: Workspace;
  readonly #defaults: Defaults;

  constructor(ws: Workspace, defaults: Defaults) {
    this.#ws = ws;
    this.#defaults = defaults;
  }

  #post(options: Partial<PostOptions> & { text: string }, channel: string, extra: Partial<StoredMessage> = {}): StoredMessage {
    const ts = this.#ws.clock.next();
    const message: StoredMessage = {
      channel,
      ts,
      user: options.user ?? this.#defaults.userId,
      team: this.#ws.identity.teamId,
      text: options.text,
      blocks: richText(options.text),
      client_msg_id: randomUUID(),
      fileIds: [],
      reactions: [],
      versions: [{ at: Date.now(), text: options.text }],
      extra: {},
      ...(options.thread_ts ? { thread_ts: options.thread_ts } : {}),
      ...extra,
    };
    return this.#ws.insertMessage(message);
  }

  #messageEvent(message: StoredMessage): Json {
    const rendered = this.#ws.render(message);
    const event: Json = {
      ...rendered,
      channel: message.channel,
      event_ts: message.ts,
      channel_type: channelType(this.#ws.channels.get(message.channel)),
    };
    delete event.reply_count;
    delete event.reply_users;
    delete event.reply_users_count;
    delete event.latest_reply;
    delete event.is_locked;
    return event;
  }

  /**
   * Someone @-mentions the bot in a channel: the `app_mention` event (text should contain `<@BOT_USER_ID>`). With
   * files, the message is a file share, and the app_mention carries the files but no subtype.
   */
  appMention(options: MentionOptions): Json {
    const mention = `<@${this.#ws.identity.botUserId}>`;
    const text = options.text.includes(mention) ? options.text : `${mention} ${options.text}`;
    const fileIds = (options.files ?? []).map(idOf);
    const shared = fileIds.length > 0 ? { subtype: 'file_share', fileIds, extra: { upload: false } } : {};
    const message = this.#post({ ...options, text }, options.channel ?? this.#defaults.channelId, shared);
    this.#completeFiles(fileIds);
    const event = this.#messageEvent(message);
    delete event.channel_type;
    delete event.subtype;
    return { ...event, type: 'app_mention' };
  }

  /**
   * The `message` event (message.channels, …) Slack also sends for a mention's message when the app subscribes
   * to the channel's messages: same message, its own event id, a file share's subtype kept.
   */
  messageOf(mention: Json): Json {
    const stored = this.#ws.findMessage(String(mention.channel), String(mention.ts));
    if (!stored) throw new Error(`no message ${String(mention.ts)} in ${String(mention.channel)}`);
    return this.#messageEvent(stored);
  }

  /** A message event (message.channels / message.im / …); in the DM unless a channel is given. */
  message(options: PostOptions): Json {
    return this.#messageEvent(this.#post(options, options.channel ?? this.#defaults.dmChannelId));
  }

  /**
   * Another app's bot posts, in the default channel unless told: a message with its user, bot_id, app_id and
   * bot_profile, and the files it uploaded marked as a bot's upload.
   */
  botMessage(options: BotPostOptions): Json {
    const { bot } = options;
    const fileIds = (options.files ?? []).map(idOf);
    const message = this.#post({ ...options, user: bot.userId }, options.channel ?? this.#defaults.channelId, {
      bot_id: bot.botId,
      app_id: bot.appId,
      fileIds,
    });
    delete message.client_msg_id;
    this.#completeFiles(fileIds);
    return this.#messageEvent(message);
  }

  /** A direct message to the bot (message.im). */
  directMessage(options: Omit<PostOptions, 'channel'>): Json {
    return this.message({ ...options, channel: this.#defaults.dmChannelId });
  }

  /** A reply in a thread. */
  threadReply(options: PostOptions & { thread_ts: string }): Json {
    return this.message(options);
  }

  /** A user shares files: `message` with subtype `file_share` and the files' objects (url_private …). */
  fileShare(options: FileShareOptions): Json {
    const fileIds = options.files.map(idOf);
    const message = this.#post({ ...options, text: options.text ?? '' }, options.channel ?? this.#defaults.dmChannelId, {
      subtype: 'file_share',
      fileIds,
      extra: { upload: false },
    });
    this.#completeFiles(fileIds);
    if (message.text === '') delete message.blocks;
    return this.#messageEvent(message);
  }

  /**
   * The author (or an admin) deletes a message: `message_deleted` with the message as it was. A thread parent that
   * has replies stays as a tombstone ("This message was deleted.") instead, announced by `message_changed`.
   */
  messageDeleted(options: { channel: string; ts: string }): Json {
    const { channel, ts } = options;
    const message = this.#ws.findMessage(channel, ts);
    if (!message) throw new Error(`no message ${ts} in ${channel}`);
    const previous = this.#ws.render(message);
    const eventTs = this.#ws.clock.next();
    const envelope = {
      type: 'message',
      hidden: true,
      channel,
      ts: eventTs,
      event_ts: eventTs,
      channel_type: channelType(this.#ws.channels.get(channel)),
    };
    if (message.thread_ts === ts && this.#ws.replies(channel, ts).length > 0) {
      this.#ws.tombstone(message);
      return { ...envelope, subtype: 'message_changed', message: this.#ws.render(message), previous_message: previous };
    }
    this.#ws.removeMessage(channel, ts);
    return { ...envelope, subtype: 'message_deleted', deleted_ts: ts, previous_message: previous };
  }

  /**
   * The author edits a message's text: `message_changed` with the message as it is now (new text and blocks,
   * `edited` by its author) and as it was (`previous_message`), hidden as every message_changed is. `at` dates the
   * edit (default now), so a test can edit "later" without waiting.
   */
  messageEdited(options: { channel: string; ts: string; text: string; at?: number }): Json {
    const message = this.#stored(options.channel, options.ts);
    const previous = this.#ws.render(message);
    const at = options.at ?? Date.now();
    const editTs = options.at === undefined ? this.#ws.clock.next() : tsAt(at);
    message.text = options.text;
    message.blocks = richText(options.text);
    message.edited = { user: message.user ?? this.#defaults.userId, ts: editTs };
    message.versions.push({ at, text: options.text });
    return this.#changed(message, previous, editTs);
  }

  /**
   * Slack unfurls the links in a message a moment after it is posted: `message_changed` with the message and its new
   * link attachments; the text and `edited` stay as they were.
   */
  linksUnfurled(options: { channel: string; ts: string }): Json {
    const message = this.#stored(options.channel, options.ts);
    const previous = this.#ws.render(message);
    const urls = [...message.text.matchAll(/<(https?:\/\/[^|>]+)(?:\|[^>]*)?>/g)].map((m) => m[1]!);
    message.attachments = urls.map((url, i) => {
      const host = new URL(url).hostname;
      return { id: i + 1, from_url: url, original_url: url, title: host, title_link: url, fallback: host, service_name: host };
    });
    return this.#changed(message, previous, this.#ws.clock.next());
  }

  #stored(channel: string, ts: string): StoredMessage {
    const message = this.#ws.findMessage(channel, ts);
    if (!message) throw new Error(`no message ${ts} in ${channel}`);
    return message;
  }

  #changed(message: StoredMessage, previous: Json, eventTs: string): Json {
    return {
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: message.channel,
      ts: eventTs,
      event_ts: eventTs,
      channel_type: channelType(this.#ws.channels.get(message.channel)),
      message: this.#ws.render(message),
      previous_message: previous,
    };
  }

  /** Sharing a user's uploaded files completes them (files.info finds them from then on). */
  #completeFiles(fileIds: readonly string[]): void {
    for (const id of fileIds) {
      const stored = this.#ws.files.get(id);
      if (stored && !stored.completed) stored.completed = true;
    }
  }

  /** The user opens the assistant container: `assistant_thread_started`. */
  assistantThreadStarted(options: AssistantThreadOptions = {}): Json {
    const user = options.user ?? this.#defaults.userId;
    const channel = options.channel ?? this.#defaults.dmChannelId;
    let threadTs = options.thread_ts;
    if (!threadTs) {
      threadTs = this.#ws.clock.next();
      this.#ws.insertMessage({
        channel,
        ts: threadTs,
        subtype: 'assistant_app_thread',
        user: this.#ws.identity.botUserId,
        text: 'New Assistant Thread',
        fileIds: [],
        reactions: [],
        versions: [],
        extra: {},
      });
    }
    return {
      type: 'assistant_thread_started',
      assistant_thread: this.#assistantThread(user, channel, threadTs, options.context),
      event_ts: this.#ws.clock.next(),
    };
  }

  /** The user switches channel with the assistant open: `assistant_thread_context_changed`. */
  assistantThreadContextChanged(options: AssistantThreadOptions & { thread_ts: string }): Json {
    const user = options.user ?? this.#defaults.userId;
    const channel = options.channel ?? this.#defaults.dmChannelId;
    return {
      type: 'assistant_thread_context_changed',
      assistant_thread: this.#assistantThread(user, channel, options.thread_ts, options.context),
      event_ts: this.#ws.clock.next(),
    };
  }

  #assistantThread(user: string, channel: string, threadTs: string, context: AssistantThreadOptions['context']): Json {
    return {
      user_id: user,
      context: {
        ...(context?.channel_id === null ? {} : { channel_id: context?.channel_id ?? this.#defaults.channelId }),
        team_id: context?.team_id ?? this.#ws.identity.teamId,
        enterprise_id: context?.enterprise_id ?? null,
      },
      channel_id: channel,
      thread_ts: threadTs,
    };
  }
}

/** The Events API `event_callback` envelope around an event, as Slack posts it (HTTP) or wraps it (Socket Mode). */
export function eventCallback(ws: Workspace, verificationToken: string, event: Json, eventId = newEventId()): Json {
  assertAppIsIn(ws, event);
  const { identity } = ws;
  return {
    token: verificationToken,
    team_id: identity.teamId,
    context_team_id: identity.teamId,
    context_enterprise_id: null,
    api_app_id: identity.appId,
    event,
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: identity.teamId,
        user_id: identity.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
    event_context: `4-${Buffer.from(JSON.stringify({ et: event.type, tid: identity.teamId, aid: identity.appId })).toString('base64url')}`,
  };
}

/** Slack sends an app the events of the conversations it is a member of, and of no other. */
function assertAppIsIn(ws: Workspace, event: Json): void {
  const item = event.item as Json | undefined;
  const channelId = typeof event.channel === 'string' ? event.channel : typeof item?.channel === 'string' ? item.channel : undefined;
  const channel = channelId === undefined ? undefined : ws.channels.get(channelId);
  if (channel && !channel.is_im && channel.is_member === false) {
    throw new Error(`fake Slack: the app is not in #${channel.name ?? channel.id}, so Slack would send it no ${String(event.type)} event from there`);
  }
}
