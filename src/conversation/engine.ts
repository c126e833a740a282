import type { Config } from '../config/config.ts';
import { HeraldError, MediaError } from '../errors.ts';
import type { Logger } from '../log/logger.ts';
import { RateLimitError, ServiceError } from '../service/errors.ts';
import type { ChatMessage } from '../service/types.ts';
import type { Store } from '../store/store.ts';
import { builtinTools } from '../tools/builtin-tools.ts';
import { ToolRegistry } from '../tools/registry.ts';
import type { ToolContext } from '../tools/types.ts';
import type { Exchange } from './context-budget.ts';
import { conversationId, conversationKeyOf } from './conversation-key.ts';
import { ConversationLocks, LockBusyError, type LockOptions } from './conversation-lock.ts';
import { readDocuments, type DocumentInput } from './document-input.ts';
import { ConversationHistory } from './history.ts';
import {
  prepareImages,
  transcribeAll,
  UNKNOWN_IMAGE_TOKENS,
  type AudioTranscript,
  type PrepareAudioFunction,
  type PrepareImageFunction,
  type TranscribeFunction,
} from './media-input.ts';
import { QuotaGuard } from './quotas.ts';
import { EDIT_WINDOW_MS } from './replacement.ts';
import { ContextTooLargeError, runReplyLoop, type ChatFunction } from './reply-loop.ts';
import { ReplyChannel } from './reply-channel.ts';
import { SettingsStore, type ResolvedSettings } from './settings.ts';
import { buildSystemPrompt } from './system-prompt.ts';
import { estimateMessageTokens } from './token-estimate.ts';
import type {
  ConversationKey,
  ConversationSettings,
  HandleOptions,
  IncomingMessage,
  ReplyEvent,
  ReplyRecord,
  ReplyStream,
  ReplyUsage,
  Replacement,
  SettingsPatch,
  SettingsScope,
} from './types.ts';
import { UsageLedger, type UsageReport, type UsageSubject } from './usage-ledger.ts';
import { emptyUsage } from './usage-meter.ts';
import { defaultQuestion, resolveMentions, userTurnText } from './user-turn.ts';

export interface EngineDeps {
  config: Config;
  logger: Logger;
  store: Store;
  /** The chat capability, bound to its client and config. */
  chat: ChatFunction;
  /** The transcribe capability; without it audio is refused politely. */
  transcribe?: TranscribeFunction;
  /** Converts and fits image bytes (src/media/image/prepare-image.ts); without it bytes pass as they are. */
  prepareImage?: PrepareImageFunction;
  /** Converts and splits recordings (src/media/audio/prepare-audio.ts); without it only WAV/MP3 pass. */
  prepareAudio?: PrepareAudioFunction;
  /** Function tools; default: the built-ins. */
  tools?: ToolRegistry;
  now?: () => Date;
  lock?: Partial<LockOptions>;
  /** Told about every finished reply (metrics). */
  onReply?: (record: ReplyRecord) => void;
}

export interface UsageOverview extends UsageReport {
  limits: { requestsPerMinute: number; dailyTokens: number };
}

/** A message being answered in this process: queued, or replying. */
interface Turn {
  messageId: string;
  /** An edit of its message replaces it: stop it quietly. */
  supersede(): void;
}

/**
 * The platform-neutral conversation engine. Adapters turn platform events into IncomingMessage, call
 * handle() and render the ReplyEvents; they never call the service themselves.
 */
export class ConversationEngine {
  readonly #deps: EngineDeps;
  readonly #config: Config;
  readonly #logger: Logger;
  readonly #now: () => Date;
  readonly #tools: ToolRegistry;
  readonly #history: ConversationHistory;
  readonly #settings: SettingsStore;
  readonly #locks: ConversationLocks;
  readonly #ledger: UsageLedger;
  readonly #quotas: QuotaGuard;
  /** Per conversation, the messages answered here now, in the order they came. */
  readonly #turns = new Map<string, Turn[]>();

  constructor(deps: EngineDeps) {
    this.#deps = deps;
    this.#config = deps.config;
    this.#logger = deps.logger;
    this.#now = deps.now ?? (() => new Date());
    this.#tools = deps.tools ?? new ToolRegistry(builtinTools);
    const { conversation, timezone } = deps.config;
    this.#history = new ConversationHistory(deps.store, { ttlMs: conversation.historyTtlSeconds * 1000, budgetTokens: conversation.contextTokens });
    this.#settings = new SettingsStore(deps.store);
    this.#locks = new ConversationLocks(deps.store, deps.logger, deps.lock);
    this.#ledger = new UsageLedger(deps.store, timezone);
    this.#quotas = new QuotaGuard(deps.store, this.#ledger, deps.config.quotas, timezone);
  }

  /**
   * Answers one message. Returns at once; the work starts immediately (so calls made in order are
   * answered in order per conversation) and the events arrive as they happen, ending with `done`.
   *
   * With `replaces`, an edited message is answered again only if the message it replaces started the
   * conversation's newest exchange (the one answered last, or still being answered, which then stops) and the edit
   * came within EDIT_WINDOW_MS: that exchange is dropped from the history before answering. The stream starts with a
   * `replacement` event saying whether it was.
   */
  handle(message: IncomingMessage, options: HandleOptions = {}): ReplyStream {
    const controller = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
    const channel = new ReplyChannel(() => controller.abort(new HeraldError('The reply was cancelled.', { code: 'cancelled' })));
    const usage = emptyUsage();
    const started = performance.now();
    let firstTextMs: number | undefined;
    let outcome: ReplyRecord['outcome'] = 'ok';
    let answered = true;
    const emit = (event: ReplyEvent) => {
      if (firstTextMs === undefined && (event.type === 'text' || event.type === 'transcript')) firstTextMs = performance.now() - started;
      if (event.type === 'error') outcome = event.code;
      if (event.type === 'replacement') answered = event.replaced;
      channel.push(event);
    };
    let superseded = false;
    const turn: Turn = {
      messageId: message.messageId,
      supersede: () => {
        if (superseded || signal.aborted) return;
        superseded = true;
        outcome = 'cancelled';
        options.onSuperseded?.();
        controller.abort(new HeraldError('The question was edited.', { code: 'cancelled' }));
      },
    };
    const conversation = conversationId(conversationKeyOf(message));
    this.#start(message, conversation, turn, options, signal, emit, usage)
      .catch((error: unknown) => {
        if (!superseded) emit(this.#errorEvent(error, signal, message));
      })
      .finally(() => {
        this.#leave(conversation, turn);
        emit({ type: 'done', usage });
        channel.end();
        if (!answered) return;
        this.#deps.onReply?.({
          platform: message.platform,
          capability: message.images?.length ? 'describe' : message.audio?.length ? 'transcribe' : 'chat',
          outcome,
          ...(firstTextMs !== undefined && { firstTextMs }),
          durationMs: performance.now() - started,
          usage,
        });
      });
    return channel;
  }

  /**
   * Forgets the exchange the platform message `messageId` started (its text, transcripts, document text and the
   * answer), waiting for a reply in progress in the conversation to end first.
   */
  async forget(key: ConversationKey, messageId: string): Promise<boolean> {
    const lease = await this.#locks.enqueue(conversationId(key)).take();
    try {
      return await this.#history.forget(key, messageId);
    } finally {
      await lease.release();
    }
  }

  /** Forgets a conversation's history. */
  reset(key: ConversationKey): Promise<boolean> {
    return this.#history.reset(key);
  }

  /** Today's and all-time usage of a user or a guild/workspace, with the limits that apply. */
  async usage(subject: UsageSubject): Promise<UsageOverview> {
    const report = await this.#ledger.report(subject, this.#now());
    const { quotas } = this.#config;
    const user = 'userId' in subject;
    return {
      ...report,
      limits: {
        requestsPerMinute: user ? quotas.userRequestsPerMinute : quotas.guildRequestsPerMinute,
        dailyTokens: user ? quotas.userDailyTokens : quotas.guildDailyTokens,
      },
    };
  }

  /** The settings in force in a conversation: channel over server over config (request overrides aside). */
  settingsFor(key: ConversationKey): Promise<ResolvedSettings> {
    return this.#settings.resolve(key, this.#config);
  }

  getSettings(scope: SettingsScope): Promise<ConversationSettings> {
    return this.#settings.get(scope);
  }

  /** Throws RangeError for an invalid value (message fit to show the admin). */
  updateSettings(scope: SettingsScope, patch: SettingsPatch): Promise<ConversationSettings> {
    return this.#settings.update(scope, patch);
  }

  async #start(
    message: IncomingMessage,
    conversation: string,
    turn: Turn,
    options: HandleOptions,
    signal: AbortSignal,
    emit: (e: ReplyEvent) => void,
    usage: ReplyUsage,
  ): Promise<void> {
    if (options.replaces) {
      const replaced = await this.#replace(message, conversation, turn, options.replaces);
      emit({ type: 'replacement', replaced });
      if (!replaced) return;
    } else this.#enter(conversation, turn);
    await this.#reply(message, options, signal, emit, usage);
  }

  /**
   * Whether an edit replaces the exchange its message started: the newest message answered here decides (a reply
   * still running for it stops), or else the stored history's newest exchange. Decided before anything is charged.
   */
  async #replace(message: IncomingMessage, conversation: string, turn: Turn, replaces: Replacement): Promise<boolean> {
    if (replaces.editedAt - replaces.sentAt > EDIT_WINDOW_MS) return false;
    const newest = this.#turns.get(conversation)?.at(-1);
    if (newest) {
      if (newest.messageId !== replaces.messageId) return false;
      this.#enter(conversation, turn);
      newest.supersede();
      return true;
    }
    const history = await this.#history.load(conversationKeyOf(message));
    if (history.at(-1)?.messageId !== replaces.messageId) return false;
    this.#enter(conversation, turn);
    return true;
  }

  #enter(conversation: string, turn: Turn): void {
    const turns = this.#turns.get(conversation);
    if (turns) turns.push(turn);
    else this.#turns.set(conversation, [turn]);
  }

  #leave(conversation: string, turn: Turn): void {
    const turns = this.#turns.get(conversation);
    const at = turns?.indexOf(turn) ?? -1;
    if (at < 0) return;
    turns!.splice(at, 1);
    if (turns!.length === 0) this.#turns.delete(conversation);
  }

  async #reply(message: IncomingMessage, options: HandleOptions, signal: AbortSignal, emit: (e: ReplyEvent) => void, usage: ReplyUsage): Promise<void> {
    const key = conversationKeyOf(message);
    // Joined before any await, so the order of handle() calls is the order of answers.
    const ticket = this.#locks.enqueue(conversationId(key));
    const subject = { platform: message.platform, userId: message.author.id, workspaceId: message.workspaceId };
    let denial;
    let settings: ResolvedSettings;
    try {
      settings = await this.#settings.resolve(key, this.#config, options.overrides);
      denial = await this.#quotas.admit(subject, this.#now(), settings.quotas);
    } catch (error) {
      ticket.cancel();
      throw error;
    }
    const refuse = denial && (() => emit({ type: 'error', code: denial.code, message: denial.message, retryAfterMs: denial.retryAfterMs }));
    // A refused edit still takes its old exchange away: the adapter takes the old answer down.
    if (refuse && !options.replaces) {
      ticket.cancel();
      refuse();
      return;
    }
    const lease = await ticket.take({
      signal,
      onWait: () => emit({ type: 'status', phase: 'queued', text: 'waiting for the previous reply…' }),
    });
    try {
      const history = await this.#history.load(key);
      if (options.replaces && history.at(-1)?.messageId === options.replaces.messageId) {
        history.pop();
        await this.#history.save(key, history);
      }
      if (refuse) refuse();
      else await this.#answer(message, key, history, settings, options, signal, emit, usage);
      if (lease.lost) this.#logger.warn({ conversation: conversationId(key) }, 'reply finished after its conversation lock expired');
    } finally {
      await lease.release();
      if (usage.serviceCalls > 0) {
        const subjects: UsageSubject[] = [{ platform: message.platform, userId: message.author.id }];
        if (message.workspaceId !== undefined) subjects.push({ platform: message.platform, workspaceId: message.workspaceId });
        await this.#ledger.record(subjects, usage, this.#now()).catch((error: unknown) => this.#logger.error({ err: error }, 'recording usage failed'));
      }
    }
  }

  async #answer(
    message: IncomingMessage,
    key: ConversationKey,
    history: Exchange[],
    settings: ResolvedSettings,
    options: HandleOptions,
    signal: AbortSignal,
    emit: (e: ReplyEvent) => void,
    usage: ReplyUsage,
  ): Promise<void> {
    const config = this.#config;
    const audio = message.audio ?? [];
    const asked = resolveMentions(message);

    let files: DocumentInput | undefined;
    if (message.documents?.length) {
      emit({ type: 'status', phase: 'reading', text: message.documents.length === 1 ? 'reading the file…' : 'reading the files…' });
      files = await readDocuments(message.documents, Math.floor(config.conversation.contextTokens / 2));
      if (files.blocks.length === 0 && asked === '' && !message.images?.length && audio.length === 0) {
        throw new MediaError(files.skipped.join('\n'), { code: 'unsupported_format' });
      }
    }
    const documents = files?.blocks ?? [];
    // A scanned PDF's pages come as pictures: the vision model reads them with the message's own images.
    const images = [...(message.images ?? []), ...(files?.images ?? [])];

    const transcripts = audio.length > 0
      ? await transcribeAll(audio, {
          transcribe: this.#deps.transcribe,
          prepareAudio: this.#deps.prepareAudio,
          language: options.overrides?.language,
          signal,
          usage,
          emit,
        })
      : [];
    const transcriptOnly = message.flags?.transcriptOnly || (asked === '' && documents.length === 0 && audio.every((a) => !a.isVoiceMessage));
    if (audio.length > 0 && images.length === 0 && transcriptOnly) {
      await this.#saveTranscriptOnly(key, history, message, transcripts);
      return;
    }

    // Attachments alone ask for a description or a summary; a voice message asks its own question about files.
    const spoken = transcripts.some((t) => t.isVoiceMessage);
    const question = asked === '' && (images.length > 0 || (documents.length > 0 && !spoken))
      ? { ...message, text: defaultQuestion(message.images?.length ?? 0, spoken ? 0 : documents.length) }
      : message;
    let userMessage: ChatMessage;
    let storedUser: ChatMessage;
    let imageTokens = (_url: string) => UNKNOWN_IMAGE_TOKENS;
    if (images.length > 0) {
      emit({ type: 'status', phase: 'looking', text: 'looking at the image…' });
      const prepared = await prepareImages(images, this.#deps.prepareImage);
      const text = userTurnText(question, { transcripts, documents });
      userMessage = { role: 'user', content: [{ type: 'text', text }, ...prepared.parts] };
      storedUser = { role: 'user', content: userTurnText(question, { transcripts, images: prepared.notes, documents }) };
      imageTokens = (url) => prepared.tokensByUrl.get(url) ?? UNKNOWN_IMAGE_TOKENS;
    } else {
      userMessage = { role: 'user', content: userTurnText(question, { transcripts, documents }) };
      storedUser = userMessage;
    }

    const toolContext: ToolContext = {
      signal,
      timezone: config.timezone,
      now: this.#now,
      platform: message.platform,
      ...(message.workspaceId !== undefined && { workspaceId: message.workspaceId }),
      channelId: message.channelId,
      userId: message.author.id,
      userName: message.author.displayName,
      ...(options.recentMessages && { recentMessages: options.recentMessages }),
      logger: this.#logger,
    };
    // Images go to the vision model, which answers about them without function tools. With
    // API_FORMAT=messages, function tools ride only on requests that need chat completions anyway (web
    // search on); a plain text turn then stays on the Messages endpoint the operator chose.
    const offerTools = images.length === 0 && (config.api.format === 'chat' || settings.webSearch !== 'off');
    const tools = offerTools ? this.#tools.definitions(toolContext) : [];
    const system = buildSystemPrompt({
      now: this.#now(),
      timezone: config.timezone,
      platform: message.platform,
      ...(settings.persona && { persona: settings.persona }),
      shared: !message.isDirect,
      tools: tools.length > 0,
    });

    const result = await runReplyLoop({
      chat: this.#deps.chat,
      system,
      history,
      user: userMessage,
      budget: config.conversation.contextTokens,
      model: images.length > 0 ? config.models.vision : settings.model,
      thinking: settings.thinking,
      webSearch: settings.webSearch,
      tools,
      registry: this.#tools,
      toolContext,
      maxToolRounds: config.conversation.maxToolRounds,
      signal,
      emit,
      usage,
      imageTokens,
    });
    for (const notice of files?.notices ?? []) emit(notice);
    await this.#save(key, history, message.messageId, [storedUser, ...result.messages.slice(1)]);
  }

  /** An audio file sent without a question: the transcript is the whole answer. */
  async #saveTranscriptOnly(key: ConversationKey, history: Exchange[], message: IncomingMessage, transcripts: AudioTranscript[]): Promise<void> {
    const names = transcripts.map((t) => `"${t.name}"`).join(', ');
    const request = userTurnText({ ...message, text: `Please transcribe ${names}.` });
    const answer = transcripts.map((t) => `Transcript of "${t.name}":\n${t.text}`).join('\n\n');
    await this.#save(key, history, message.messageId, [
      { role: 'user', content: request },
      { role: 'assistant', content: answer },
    ]);
  }

  async #save(key: ConversationKey, history: Exchange[], messageId: string, messages: ChatMessage[]): Promise<void> {
    const tokens = messages.reduce((sum, m) => sum + estimateMessageTokens(m, () => UNKNOWN_IMAGE_TOKENS), 0);
    await this.#history.save(key, [...history, { messages, tokens, at: this.#now().getTime(), messageId }]);
  }

  #errorEvent(error: unknown, signal: AbortSignal, message: IncomingMessage): ReplyEvent {
    if (signal.aborted) return { type: 'error', code: 'cancelled', message: 'The reply was cancelled.' };
    if (error instanceof LockBusyError) return { type: 'error', code: 'busy', message: error.message };
    if (error instanceof ContextTooLargeError) return { type: 'error', code: 'too_long', message: error.message };
    if (error instanceof MediaError) return { type: 'error', code: 'media', message: error.message };
    if (error instanceof ServiceError) {
      this.#logger.warn({ err: error, platform: message.platform, channel: message.channelId }, 'service request failed');
      return {
        type: 'error',
        code: 'service',
        message: error.message,
        ...(error instanceof RateLimitError && error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
      };
    }
    this.#logger.error({ err: error, platform: message.platform, channel: message.channelId }, 'reply failed');
    return { type: 'error', code: 'internal', message: 'Sorry — something went wrong while answering. Please try again.' };
  }
}
