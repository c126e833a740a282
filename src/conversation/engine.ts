import type { Config } from '../config/config.ts';
import { CancelledError } from '../errors.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { builtinTools } from '../tools/builtin-tools.ts';
import { ToolRegistry } from '../tools/registry.ts';
import { Admission, emitDenial } from './admission.ts';
import { answerTurn, type AnswerDeps } from './answer-turn.ts';
import { conversationId } from './conversation-key.ts';
import { ConversationLocks, type LockOptions } from './conversation-lock.ts';
import { ConversationHistory } from './history.ts';
import type { PrepareAudioFunction, PrepareImageFunction, TranscribeFunction } from './media-input.ts';
import { QuotaGuard } from './quotas.ts';
import { EDIT_WINDOW_MS } from './replacement.ts';
import type { ChatFunction } from './reply-loop.ts';
import { respond, type RespondDeps } from './respond.ts';
import { SettingsStore, type ResolvedSettings } from './settings.ts';
import type { TurnContext } from './turn-context.ts';
import { TurnRegistry, type Turn } from './turn-registry.ts';
import type {
  ChannelTriggers,
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

/** Work `runTask` runs once the asker is admitted: it asks the model through `chat` and emits the reply's events. */
export type EngineTask = (run: {
  settings: ResolvedSettings;
  chat: ChatFunction;
  signal: AbortSignal;
  emit: (event: ReplyEvent) => void;
  usage: ReplyUsage;
}) => Promise<void>;

export interface UsageOverview extends UsageReport {
  limits: { requestsPerMinute: number; dailyTokens: number };
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
  readonly #history: ConversationHistory;
  readonly #answerDeps: AnswerDeps;
  readonly #settings: SettingsStore;
  readonly #ledger: UsageLedger;
  readonly #admission: Admission;
  readonly #turns = new TurnRegistry();
  readonly #respondDeps: RespondDeps;

  constructor(deps: EngineDeps) {
    this.#deps = deps;
    this.#config = deps.config;
    this.#logger = deps.logger;
    this.#now = deps.now ?? (() => new Date());
    const { conversation, timezone } = deps.config;
    const locks = new ConversationLocks(deps.store, deps.logger, deps.lock);
    const ttlMs = conversation.historyTtlSeconds * 1000;
    this.#history = new ConversationHistory(deps.store, { ttlMs, budgetTokens: conversation.contextTokens, locks, now: () => this.#now().getTime() });
    const tools = deps.tools ?? new ToolRegistry(builtinTools);
    this.#answerDeps = { ...deps, now: this.#now, history: this.#history, tools };
    this.#respondDeps = { logger: deps.logger, ...(deps.onReply && { onReply: deps.onReply }) };
    this.#settings = new SettingsStore(deps.store);
    this.#ledger = new UsageLedger(deps.store, timezone);
    this.#admission = new Admission({
      config: deps.config,
      logger: deps.logger,
      now: this.#now,
      settings: this.#settings,
      quotas: new QuotaGuard(deps.store, this.#ledger, deps.config.quotas, timezone),
      locks,
      ledger: this.#ledger,
    });
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
    const capability = message.images?.length ? 'describe' : message.audio?.length ? 'transcribe' : 'chat';
    return respond(this.#respondDeps, message, options, capability, async (turn, supersede) => {
      const entry: Turn = {
        messageId: message.messageId,
        supersede: () => {
          if (turn.signal.aborted) return;
          options.onSuperseded?.();
          supersede(new CancelledError('The question was edited.'));
        },
      };
      try {
        await this.#start(turn, entry);
      } finally {
        this.#turns.leave(turn.conversation, entry);
      }
    });
  }

  /**
   * Runs work of the model outside the conversation's history (a summary) as the reply to `message`: admitted by the
   * asker's quotas and run in the conversation's turn like an answer, its usage recorded and its errors shown the same way.
   */
  runTask(message: IncomingMessage, task: EngineTask, options: Pick<HandleOptions, 'signal'> = {}): ReplyStream {
    return respond(this.#respondDeps, message, options, 'summarize', (turn) =>
      this.#admission.run(turn, ({ settings }) => task({ settings, chat: this.#deps.chat, signal: turn.signal, emit: turn.emit, usage: turn.usage })),
    );
  }

  /** Whether the platform message `messageId` started the conversation's newest exchange (answered last, or being answered). */
  async startedNewest(key: ConversationKey, messageId: string): Promise<boolean> {
    const newest = this.#turns.newest(conversationId(key));
    if (newest) return newest.messageId === messageId;
    return (await this.#history.load(key)).at(-1)?.messageId === messageId;
  }

  /**
   * Forgets the exchange the platform message `messageId` started (its text, transcripts, document text and the
   * answer), waiting for a reply in progress in the conversation to end first.
   */
  forget(key: ConversationKey, messageId: string): Promise<boolean> {
    return this.#admission.exclusive(conversationId(key), () => this.#history.forget(key, messageId));
  }

  /** Forgets a conversation's history (a channel's with its threads and reply chains) and its persona. */
  async reset(key: ConversationKey): Promise<boolean> {
    const [history, persona] = await Promise.all([this.#history.reset(key), this.#settings.forgetConversationPersona(key)]);
    return history || persona;
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

  /** How Herald is addressed in a conversation's channel: its admins' trigger settings. */
  triggersFor(key: ConversationKey): Promise<ChannelTriggers> {
    return this.#settings.triggers(key, this.#logger);
  }

  /**
   * A member's persona for their conversation (null clears it), kept as long as its history. False, and nothing
   * stored, where the channel's admins have not allowed personas per conversation; RangeError for an invalid one.
   */
  async setConversationPersona(key: ConversationKey, persona: string | null): Promise<boolean> {
    if (!(await this.#settings.resolve(key, this.#config)).memberPersonas) return false;
    await this.#settings.setConversationPersona(key, persona, this.#config.conversation.historyTtlSeconds * 1000);
    return true;
  }

  getSettings(scope: SettingsScope): Promise<ConversationSettings> {
    return this.#settings.get(scope);
  }

  /** Throws RangeError for an invalid value (message fit to show the admin). */
  updateSettings(scope: SettingsScope, patch: SettingsPatch): Promise<ConversationSettings> {
    return this.#settings.update(scope, patch);
  }

  async #start(turn: TurnContext, entry: Turn): Promise<void> {
    const { replaces } = turn.options;
    if (replaces) {
      const replaced = await this.#replace(turn, entry, replaces);
      turn.emit({ type: 'replacement', replaced });
      if (!replaced) return;
    } else this.#turns.enter(turn.conversation, entry);
    await this.#admission.run(turn, async ({ settings, denial }) => {
      const history = await this.#history.load(turn.key);
      if (replaces && history.at(-1)?.messageId === replaces.messageId) {
        history.pop();
        await this.#history.save(turn.key, history);
      }
      if (denial) emitDenial(turn, denial);
      else await answerTurn(turn, { settings }, history, this.#answerDeps);
    });
  }

  /**
   * Whether an edit replaces the exchange its message started: the newest message answered here decides (a reply
   * still running for it stops), or else the stored history's newest exchange. Decided before anything is charged.
   */
  async #replace(turn: TurnContext, entry: Turn, replaces: Replacement): Promise<boolean> {
    if (replaces.editedAt - replaces.sentAt > EDIT_WINDOW_MS) return false;
    const newest = this.#turns.newest(turn.conversation);
    if (newest) {
      if (newest.messageId !== replaces.messageId) return false;
      this.#turns.enter(turn.conversation, entry);
      newest.supersede();
      return true;
    }
    const history = await this.#history.load(turn.key);
    if (history.at(-1)?.messageId !== replaces.messageId) return false;
    this.#turns.enter(turn.conversation, entry);
    return true;
  }
}
