/**
 * A fake Slack for tests: the Web API, private file hosting, Events API delivery over HTTP and Socket Mode, on
 * one loopback port. The real @slack/bolt App runs against it unmodified apart from configuration:
 * `clientOptions: { slackApiUrl: fake.apiUrl }` (and for Socket Mode the same URL in
 * `installerOptions.clientOptions`, so apps.connections.open reaches the fake).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBuilders } from './event-builders.ts';
import { HttpEvents } from './events-http.ts';
import { Interactions } from './interactivity.ts';
import type { DeliveryOptions, EventRetryOptions, HttpDelivery, SlashCommandOptions } from './events-http.ts';
import { FileHost } from './file-host.ts';
import type { FileFetch, HeldTransfer, NewFile, UploadPost } from './file-host.ts';
import { sendText } from './http-util.ts';
import {
  appToken as newAppToken,
  botToken as newBotToken,
  compareTs,
  hexSecret,
  slackId,
  triggerId,
  verificationToken as newVerificationToken,
} from './ids.ts';
import type { FakeCore } from './method-types.ts';
import { RateLimiter } from './rate-limits.ts';
import type { RateLimitOptions, Served429 } from './rate-limits.ts';
import { ResponseUrls } from './response-urls.ts';
import type { ResponseUrlPost } from './response-urls.ts';
import { messageShortcutPayload, type MessageShortcutInput } from './shortcuts.ts';
import { SocketModeServer } from './socket-mode.ts';
import { Workspace } from './state.ts';
import type { AssistantThreadState, Json, OtherBot, SlackChannel, SlackUser, StoredFile, StoredMessage } from './state.ts';
import { waitFor } from './wait-for.ts';
import { WebApi } from './web-api.ts';
import type { ApiCall, HeldResponse } from './web-api.ts';

export type {
  ApiCall,
  AssistantThreadState,
  HeldResponse,
  DeliveryOptions,
  EventRetryOptions,
  FileFetch,
  HeldTransfer,
  HttpDelivery,
  Json,
  NewFile,
  RateLimitOptions,
};
export type { ResponseUrlPost, Served429, SlackChannel, SlackUser, SlashCommandOptions, StoredFile, StoredMessage, UploadPost };
export type { SocketConnection, SocketDelivery, SocketDeliveryOptions } from './socket-mode.ts';
export type { AssistantThreadOptions, BotPostOptions, FileShareOptions, MentionOptions, PostOptions } from './event-builders.ts';
export type { OtherBot } from './state.ts';
export type { MessageShortcutInput } from './shortcuts.ts';
export { slackSignature } from './signing.ts';

/** The markdown a message shows: its markdown block's (posted with blocks, `text` is only the fallback), else its text. */
export function markdownOf(message: StoredMessage): string {
  const block = (message.blocks as Json[] | undefined)?.find((b) => b.type === 'markdown');
  return typeof block?.text === 'string' ? block.text : message.text;
}

export const DEFAULT_SCOPES = [
  'app_mentions:read',
  'assistant:write',
  'channels:history',
  'channels:read',
  'chat:write',
  'commands',
  'files:read',
  'files:write',
  'groups:history',
  'groups:read',
  'im:history',
  'im:read',
  'mpim:history',
  'reactions:write',
  'team:read',
  'users:read',
];

export interface FakeSlackOptions {
  team?: { id?: string; name?: string; domain?: string };
  app?: { appId?: string; botUserId?: string; botId?: string; botName?: string };
  /** The default human user, author of builder-made messages. */
  user?: { id?: string; name?: string; realName?: string };
  /** The default public channel (the bot is a member). */
  channel?: { id?: string; name?: string };
  /** Bot token scopes; calls needing another scope fail with missing_scope. */
  scopes?: string[];
  rateLimits?: RateLimitOptions;
  /** How long a chat stream accepts writes (Slack: about five minutes). */
  streamLifetimeMs?: number;
  /** How long an HTTP delivery waits for the app (Slack: 3 s). */
  eventTimeoutMs?: number;
  /** Retry failed Events API deliveries on Slack's schedule (see events-http.ts); off unless set. */
  eventRetries?: EventRetryOptions;
  socketPingIntervalMs?: number;
  /** How long a Socket Mode delivery waits for its ack (Slack: 3 s). */
  socketAckTimeoutMs?: number;
}

export class FakeSlack {
  /** For `clientOptions.slackApiUrl`: http://127.0.0.1:PORT/api/ */
  readonly apiUrl: string;
  readonly baseUrl: string;
  readonly botToken: string;
  readonly appToken: string;
  readonly signingSecret: string;
  readonly verificationToken: string;
  readonly teamId: string;
  readonly appId: string;
  readonly botUserId: string;
  readonly botId: string;
  /** The default human user. */
  readonly userId: string;
  /** The default public channel. */
  readonly channelId: string;
  /** The default user's DM with the bot. */
  readonly dmChannelId: string;
  readonly workspace: Workspace;
  /** Builders for what a person does in Slack (mention, DM, thread reply, file share, assistant thread). */
  readonly events: EventBuilders;
  /** Socket Mode: deliveries, acks, disconnects and drops. */
  readonly socket: SocketModeServer;
  /** Button presses (block_actions) and the Home tab opened (app_home_opened). */
  readonly interactions: Interactions;
  readonly #server: ReturnType<typeof createServer>;
  readonly #webApi: WebApi;
  readonly #files: FileHost;
  readonly #http: HttpEvents;
  readonly #responseUrls: ResponseUrls;
  readonly #rateLimiter: RateLimiter;

  constructor(server: ReturnType<typeof createServer>, port: number, options: FakeSlackOptions) {
    this.#server = server;
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.apiUrl = `${this.baseUrl}/api/`;
    this.teamId = options.team?.id ?? slackId('T');
    this.appId = options.app?.appId ?? slackId('A');
    this.botUserId = options.app?.botUserId ?? slackId('U');
    this.botId = options.app?.botId ?? slackId('B');
    this.botToken = newBotToken();
    this.appToken = newAppToken(this.appId);
    this.signingSecret = hexSecret(16);
    this.verificationToken = newVerificationToken();
    this.workspace = new Workspace({
      teamId: this.teamId,
      teamName: options.team?.name ?? 'Fake Workspace',
      teamDomain: options.team?.domain ?? 'fake-workspace',
      appId: this.appId,
      botUserId: this.botUserId,
      botId: this.botId,
      botName: options.app?.botName ?? 'herald',
    });
    const human = this.workspace.addUser({
      ...(options.user?.id ? { id: options.user.id } : {}),
      name: options.user?.name ?? 'alice',
      real_name: options.user?.realName ?? 'Alice Example',
    });
    this.userId = human.id;
    this.channelId = this.workspace.addChannel({
      ...(options.channel?.id ? { id: options.channel.id } : {}),
      name: options.channel?.name ?? 'general',
    }).id;
    this.dmChannelId = this.workspace.addChannel({ user: this.userId }).id;

    this.#rateLimiter = new RateLimiter(options.rateLimits);
    this.#files = new FileHost(this.workspace, this.baseUrl, () => [this.botToken]);
    this.#responseUrls = new ResponseUrls(this.workspace, this.baseUrl);
    const defaults = { userId: this.userId, channelId: this.channelId, dmChannelId: this.dmChannelId };
    this.events = new EventBuilders(this.workspace, defaults);
    this.interactions = new Interactions({
      ws: this.workspace,
      verificationToken: this.verificationToken,
      responseUrls: this.#responseUrls,
      defaults,
    });
    this.#http = new HttpEvents({
      ws: this.workspace,
      signingSecret: this.signingSecret,
      verificationToken: this.verificationToken,
      responseUrls: this.#responseUrls,
      defaults,
      timeoutMs: options.eventTimeoutMs ?? 3000,
      retries: options.eventRetries,
    });
    this.socket = new SocketModeServer({
      ws: this.workspace,
      verificationToken: this.verificationToken,
      responseUrls: this.#responseUrls,
      defaults,
      pingIntervalMs: options.socketPingIntervalMs ?? 5000,
      ackTimeoutMs: options.socketAckTimeoutMs ?? 3000,
    });
    this.socket.setBaseUrl(`ws://127.0.0.1:${port}`);
    const core: FakeCore = {
      ws: this.workspace,
      botToken: this.botToken,
      appToken: this.appToken,
      scopes: options.scopes ?? DEFAULT_SCOPES,
      streamLifetimeMs: options.streamLifetimeMs ?? 300_000,
      rateLimiter: this.#rateLimiter,
      files: this.#files,
      issueSocketUrl: () => this.socket.issueUrl(),
    };
    this.#webApi = new WebApi(core);
  }

  async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const path = url.pathname;
    if (path.startsWith('/api/')) return this.#webApi.handle(req, res, path.slice('/api/'.length), url);
    if (path.startsWith('/files-pri/')) return this.#files.serve(req, res, url);
    if (path.startsWith('/upload/v1/')) return this.#files.handleUpload(req, res, path.slice('/upload/v1/'.length));
    if (path.startsWith('/commands/') || path.startsWith('/actions/')) return this.#responseUrls.handle(req, res, path);
    if (path === '/' && req.method === 'GET') return this.#files.serveLogin(res);
    sendText(res, 404, 'not found');
  }

  // ── Events over HTTP ──────────────────────────────────────────────────────────────────────────────────────

  /** Where Slack posts events, commands and interactions, e.g. http://127.0.0.1:APP_PORT/slack/events */
  setRequestUrl(url: string): void {
    this.#http.requestUrl = url;
  }

  /** Posts an `event_callback` with this event to the request URL, signed as Slack signs it. */
  deliverEvent(event: Json, options?: DeliveryOptions): Promise<HttpDelivery> {
    return this.#http.deliverEvent(event, options);
  }

  /** Re-sends an earlier delivery unchanged (same event_id) with X-Slack-Retry-Num/Reason, as Slack retries. */
  redeliver(delivery: HttpDelivery, options?: DeliveryOptions): Promise<HttpDelivery> {
    return this.#http.redeliver(delivery, options);
  }

  sendSlashCommand(options: SlashCommandOptions): Promise<HttpDelivery> {
    return this.#http.sendSlashCommand(options);
  }

  sendInteractive(payload: Json, options?: DeliveryOptions): Promise<HttpDelivery> {
    return this.#http.sendInteractive(payload, options);
  }

  urlVerification(options?: DeliveryOptions): Promise<HttpDelivery> {
    return this.#http.urlVerification(options);
  }

  get httpDeliveries(): readonly HttpDelivery[] {
    return this.#http.deliveries;
  }

  /** A response_url for interaction payloads a test builds itself. */
  mintResponseUrl(channel = this.channelId, user = this.userId): string {
    return this.#responseUrls.mint('actions', channel, user);
  }

  /**
   * A `block_actions` payload for a button pressed on a message, with a fresh response_url and trigger_id. An
   * `ephemeral` message's press says so in its container and carries no message: Slack keeps none to send.
   */
  blockActionsPayload(options: {
    messageTs: string;
    actionId: string;
    value?: string;
    blockId?: string;
    channel?: string;
    user?: string;
    ephemeral?: boolean;
  }): Json {
    const channel = options.channel ?? this.channelId;
    const user = options.user ?? this.userId;
    const message = this.workspace.findMessage(channel, options.messageTs);
    return {
      type: 'block_actions',
      user: { id: user, username: this.workspace.users.get(user)?.name ?? 'user', team_id: this.teamId },
      api_app_id: this.appId,
      token: this.verificationToken,
      container: { type: 'message', message_ts: options.messageTs, channel_id: channel, is_ephemeral: options.ephemeral ?? false },
      trigger_id: triggerId(),
      team: { id: this.teamId, domain: this.workspace.identity.teamDomain },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: channel, name: this.workspace.channels.get(channel)?.name ?? 'directmessage' },
      ...(message ? { message: this.workspace.render(message) } : {}),
      state: { values: {} },
      response_url: this.#responseUrls.mint('actions', channel, user, options.messageTs),
      actions: [
        {
          action_id: options.actionId,
          block_id: options.blockId ?? 'actions',
          type: 'button',
          ...(options.value !== undefined ? { value: options.value } : {}),
          action_ts: this.workspace.clock.next(),
        },
      ],
    };
  }

  /**
   * A `message_action` payload for one of the app's message shortcuts picked on a message; deliver it with
   * sendInteractive (HTTP) or socket.sendInteractive (Socket Mode).
   */
  messageShortcutPayload(input: MessageShortcutInput): Json {
    const defaults = { userId: this.userId, channelId: this.channelId };
    return messageShortcutPayload(
      { ws: this.workspace, verificationToken: this.verificationToken, responseUrls: this.#responseUrls, defaults },
      input,
    );
  }

  /** Ephemeral messages the bot sent (chat.postEphemeral): Slack keeps none of them, so they come from the call log. */
  ephemeralMessages(user?: string): Json[] {
    return this.calls('chat.postEphemeral')
      .filter((c) => c.response.ok === true && (user === undefined || c.args.user === user))
      .map((c) => ({ ...c.args, ts: c.response.message_ts }));
  }

  get responseUrlPosts(): readonly ResponseUrlPost[] {
    return this.#responseUrls.posts;
  }

  // ── Web API observation and control ──────────────────────────────────────────────────────────────────────

  /** Every Web API call, in order; filtered by method when given. */
  calls(method?: string): ApiCall[] {
    return method ? this.#webApi.log.filter((c) => c.method === method) : [...this.#webApi.log];
  }

  /** Every 429 served. */
  get rateLimited(): readonly Served429[] {
    return this.#rateLimiter.served;
  }

  count429(method?: string): number {
    return this.#rateLimiter.served.filter((s) => method === undefined || s.method === method).length;
  }

  /** The next `times` calls of `method` get 429 with this Retry-After. */
  forceRateLimit(method: string, options?: { times?: number; retryAfterSec?: number }): void {
    this.#rateLimiter.force(method, options);
  }

  /** The next call of `method` is done at once but answered only once released. */
  holdResponse(method: string): HeldResponse {
    return this.#webApi.holdResponse(method);
  }

  /** The next `times` calls of `method` answer {ok:false, error}. */
  injectError(method: string, error: string, times = 1): void {
    this.#webApi.injectError(method, error, times);
  }

  // ── Workspace content ────────────────────────────────────────────────────────────────────────────────────

  addUser(user: Partial<SlackUser> & { name: string }): SlackUser {
    return this.workspace.addUser(user);
  }

  addChannel(channel: Partial<SlackChannel> & ({ name: string } | { user: string })): SlackChannel {
    return this.workspace.addChannel(channel);
  }

  /** Another app's bot in the workspace; it posts with `events.botMessage`. */
  addBot(name: string): OtherBot {
    return this.workspace.addBot(name);
  }

  /** A file a user uploaded (not yet shared); share it with `events.fileShare({ files: [file] })`. */
  uploadUserFile(file: Omit<NewFile, 'user'> & { user?: string }): StoredFile {
    return this.#files.create({ ...file, user: file.user ?? this.userId }, { completed: false });
  }

  /** A voice clip recorded in the Slack client: M4A (audio/mp4) with subtype slack_audio. */
  uploadAudioClip(clip: { bytes: Buffer | Uint8Array; user?: string; durationMs?: number; name?: string }): StoredFile {
    return this.uploadUserFile({
      name: clip.name ?? 'audio_message.m4a',
      bytes: clip.bytes,
      mimetype: 'audio/mp4',
      filetype: 'm4a',
      subtype: 'slack_audio',
      ...(clip.user ? { user: clip.user } : {}),
      extra: { duration_ms: clip.durationMs ?? 3000, transcription: { status: 'none' } },
    });
  }

  /** A snippet the user wrote in Slack's snippet editor: plain text with a language (its filetype), named by its title. */
  uploadSnippet(snippet: { content: string; filetype?: string; title?: string; user?: string }): StoredFile {
    return this.uploadUserFile({
      name: snippet.title ?? 'Untitled',
      bytes: Buffer.from(snippet.content),
      mode: 'snippet',
      ...(snippet.filetype ? { filetype: snippet.filetype } : {}),
      ...(snippet.user ? { user: snippet.user } : {}),
    });
  }

  /** The owner deletes a file: messages that shared it show `{id, mode: 'tombstone'}`, files.info says file_deleted. */
  deleteFile(id: string): void {
    this.workspace.deleteFile(id);
  }

  /** Holds downloads of a file after their first `afterBytes` bytes, until released. */
  holdFileTransfer(fileId: string, afterBytes: number): HeldTransfer {
    return this.#files.hold(fileId, afterBytes);
  }

  get fileFetches(): readonly FileFetch[] {
    return this.#files.fetches;
  }

  get uploads(): readonly UploadPost[] {
    return this.#files.uploads;
  }

  /** Top-level messages and replies of a channel, oldest first. */
  messages(channel = this.channelId): StoredMessage[] {
    return this.workspace.allMessages(channel);
  }

  /** A thread's replies (without the parent), oldest first. */
  thread(channel: string, threadTs: string): StoredMessage[] {
    return this.workspace.replies(channel, threadTs);
  }

  message(channel: string, ts: string): StoredMessage | undefined {
    return this.workspace.findMessage(channel, ts);
  }

  /** Messages the bot posted (any channel), oldest first. */
  botMessages(channel?: string): StoredMessage[] {
    const channels = channel ? [channel] : [...this.workspace.channels.keys()];
    return channels
      .flatMap((c) => this.workspace.allMessages(c))
      .filter((m) => m.user === this.botUserId && m.subtype !== 'assistant_app_thread')
      .sort((a, b) => compareTs(a.ts, b.ts));
  }

  assistantThread(channel: string, threadTs: string): AssistantThreadState {
    return this.workspace.assistantThread(channel, threadTs);
  }

  /** The user presses "stop" on a streaming reply: further appends get stopped_by_user. */
  stopStreamAsUser(channel: string, ts: string): void {
    const stream = this.workspace.findMessage(channel, ts)?.stream;
    if (!stream) throw new Error(`no stream at ${channel}/${ts}`);
    stream.state = 'stopped_by_user';
    stream.stoppedAt = Date.now();
  }

  // ── Waiting ──────────────────────────────────────────────────────────────────────────────────────────────

  waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs = 5000): Promise<T> {
    return waitFor(predicate, timeoutMs);
  }

  waitForCall(method: string, predicate: (call: ApiCall) => boolean = () => true, timeoutMs = 5000): Promise<ApiCall> {
    return waitFor(() => this.calls(method).find(predicate), timeoutMs, `a ${method} call`);
  }

  waitForMessage(channel: string, predicate: (message: StoredMessage) => boolean, timeoutMs = 5000): Promise<StoredMessage> {
    return waitFor(() => this.messages(channel).find(predicate), timeoutMs, `a message in ${channel}`);
  }

  async close(): Promise<void> {
    await this.socket.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  let fake: FakeSlack | undefined;
  const server = createServer((req, res) => {
    if (!fake) {
      sendText(res, 503, 'starting');
      return;
    }
    fake.route(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendText(res, 500, String(error));
      else res.destroy();
    });
  });
  server.on('upgrade', (req, socket, head) => {
    if (fake) fake.socket.handleUpgrade(req, socket, head);
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake = new FakeSlack(server, port, options);
  return fake;
}
