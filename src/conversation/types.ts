import type { WebSearchMode } from '../config/config.ts';
import type { ErrorKind } from '../errors.ts';
import type { Citation, Usage } from '../service/types.ts';
import type { ApprovalOutcome, ApprovalRequest } from '../tools/types.ts';
import type { WorkspaceHistory } from '../workspace/workspace-history.ts';

export interface MessageAuthor {
  id: string;
  displayName: string;
  isBot?: boolean;
}

/** An image attached to a message: its bytes (preferred), or a public URL the service fetches itself. */
export interface IncomingImage {
  name: string;
  mime?: string;
  data?: Uint8Array;
  url?: string;
}

export interface IncomingAudio {
  name: string;
  mime?: string;
  data: Uint8Array;
  /** A recorded voice note (answered like typed text) rather than an audio file (transcribed). */
  isVoiceMessage: boolean;
}

/**
 * Any other attached file: text, code or a PDF to read (with `data`), or a file of a kind Herald cannot
 * read, passed without `data` so the user can be told it was skipped.
 */
export interface IncomingDocument {
  name: string;
  mime?: string;
  data?: Uint8Array;
}

export interface Mention {
  id: string;
  displayName: string;
  /** How the mention appears in `text` (e.g. `<@123>`); replaced by `@displayName` for the model. */
  raw?: string;
}

/** The message this one replies to, when the platform says so. */
export interface ReplyReference {
  messageId: string;
  authorName?: string;
  text?: string;
  /** Replying to the bot itself: its words are already in the conversation. */
  isBot?: boolean;
}

export interface MessageFlags {
  /** The user asked to see the model's reasoning (adapters show it only then). */
  wantsReasoning?: boolean;
  /** Only transcribe the audio; do not answer it. */
  transcriptOnly?: boolean;
}

/** One platform message addressed to the bot, already stripped of platform details. */
export interface IncomingMessage {
  /** `discord`, `slack`, `cli`, … */
  platform: string;
  /** Guild (Discord) or workspace/team (Slack); absent in direct messages without one. */
  workspaceId?: string;
  channelId: string;
  /** Thread id, or the root message id of a reply chain; absent for the channel's main timeline. */
  threadId?: string;
  messageId: string;
  author: MessageAuthor;
  text: string;
  images?: IncomingImage[];
  audio?: IncomingAudio[];
  documents?: IncomingDocument[];
  mentions?: Mention[];
  replyTo?: ReplyReference;
  /** A direct message: one user, no speaker names needed. */
  isDirect: boolean;
  flags?: MessageFlags;
}

/** Which conversation a message belongs to: history, ordering and the lock are per key. */
export interface ConversationKey {
  platform: string;
  workspaceId?: string;
  channelId: string;
  threadId?: string;
}

/** Per-guild/workspace or per-channel choices, stored; a missing field falls through to the wider scope. */
export interface ConversationSettings {
  /** Replaces the bot's identity line in the system prompt ("You are …"). */
  persona?: string;
  thinking?: boolean;
  webSearch?: WebSearchMode;
  /** Chat model for text conversations here (images always go to VISION_MODEL). */
  model?: string;
  /** Default voice of /say here. */
  voice?: string;
  /** Per-user limits here; they can only be stricter than the operator's (QUOTA_USER_*). */
  userRequestsPerMinute?: number;
  userDailyTokens?: number;
  /** Members may give their own conversation a persona (/persona); off by default. */
  memberPersonas?: boolean;
  /** Every message here is answered, without a mention. */
  answerAll?: boolean;
  /** Discord: a mention opens a thread, named after the question, where Herald goes on without mentions. */
  autoThread?: boolean;
  /** Words that address Herald at the start of a message, as a mention does ("herald, …"); lower case. */
  triggerWords?: string[];
  /** 👀 on a question when it arrives, then ✅ when answered or ⚠️ when it failed. */
  statusReactions?: boolean;
  /** MCP servers (their MCP_CONFIG names) whose tools are not offered here. */
  mcpOff?: string[];
  /** Herald may listen in voice channels (/talk): it sends what people say there to the service; off by default. */
  voiceListening?: boolean;
  /** The name Herald answers to in voice channels (default "Herald"). */
  voiceName?: string;
}

/** How Herald is addressed in a channel, as its admins set it with /settings. */
export interface ChannelTriggers {
  /** Every message is answered, without a mention. */
  answerAll: boolean;
  /** Discord: a mention opens a thread named after the question, answered there without mentions. */
  autoThread: boolean;
  /** Lower-case words that address Herald at the start of a message, as a mention does. */
  words: readonly string[];
  /** 👀 when a question arrives, then ✅ or ⚠️. */
  statusReactions: boolean;
}

export interface SettingsScope {
  platform: string;
  /** Guild or workspace; absent for a direct-message channel. */
  workspaceId?: string;
  /** Absent: the whole guild/workspace. */
  channelId?: string;
}

/** A patch: `null` clears a field, `undefined` leaves it. */
export type SettingsPatch = { [K in keyof ConversationSettings]?: ConversationSettings[K] | null };

/** Choices for one request, winning over every stored setting. */
export interface RequestOverrides {
  thinking?: boolean;
  webSearch?: WebSearchMode;
  persona?: string;
  /** Language of spoken audio in this request, when the user knows it (improves recognition). */
  language?: 'auto' | 'zh' | 'en';
}

/**
 * An edited message to answer again in place of its first version, or a message answered again (Regenerate, with
 * both times the press's). It replaces that exchange only when it is the conversation's newest and the edit came
 * within EDIT_WINDOW_MS of the message; otherwise nothing is answered.
 */
export interface Replacement {
  /** The platform message whose exchange this one replaces (for an edited question, its own id). */
  messageId: string;
  /** When the message was sent and when it was edited, by the platform's clock (ms since the epoch). */
  sentAt: number;
  editedAt: number;
}

export interface HandleOptions {
  /** Cancels the reply (service request, tools, waiting for the lock). */
  signal?: AbortSignal;
  overrides?: RequestOverrides;
  /** The history of the channels the asker and Herald can read, for the workspace search tool. */
  workspace?: WorkspaceHistory;
  /** The answer is spoken aloud in a voice channel: the model is asked for plain, brief sentences. */
  spoken?: boolean;
  /** This message is an edit answered again (the stream then starts with a `replacement` event). */
  replaces?: Replacement;
  /**
   * Called when an edit of this message replaces the reply while it is still being answered: the reply stops
   * (its stream ends without an error) and the adapter takes down what it showed of it.
   */
  onSuperseded?: () => void;
  /**
   * Asks the asker to approve a tool call where they asked, and waits for the answer; the conversation's lock is given
   * up meanwhile. Absent where nobody can be asked: such a call is not run.
   */
  approve?(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome>;
}

/** A reply's running total over all its service calls (token fields as in one call's `Usage`). */
export interface ReplyUsage extends Omit<Usage, 'webSearch'> {
  /** Requests made to the service for this reply. */
  serviceCalls: number;
  /** Keyword searches the service ran (each billed). */
  webSearchCalls: number;
  webPages: number;
}

export type StatusPhase = 'queued' | 'thinking' | 'searching' | 'reading' | 'looking' | 'transcribing' | 'tool';

export type NoticeCode = 'history_trimmed' | 'tool_rounds_exhausted' | 'tool_failed' | 'file_skipped' | 'file_truncated' | 'summary_incomplete';

export type ReplyEvent =
  /**
   * First event of a reply given `replaces`: whether the edit replaced the exchange. When it did, the old exchange is
   * gone from the history and its answer is to be taken down; when not, only `done` follows and nothing is to change.
   */
  | { type: 'replacement'; replaced: boolean }
  /** What the bot is doing now (for a typing indicator or a placeholder line). */
  | { type: 'status'; phase: StatusPhase; text: string }
  /** The next piece of the answer; citation markers [n] already match the last `citations` list. */
  | { type: 'text'; delta: string }
  | { type: 'reasoning'; delta: string }
  /** The full, numbered source list so far (replaces any earlier one). */
  | { type: 'citations'; citations: Citation[] }
  | { type: 'transcript'; name: string; text: string }
  | { type: 'attachment'; name: string; mime: string; data: Buffer }
  | { type: 'notice'; code: NoticeCode; text: string }
  /** A message fit to show the user; `retryAfterMs` when trying later will help. */
  | { type: 'error'; code: ErrorKind; message: string; retryAfterMs?: number }
  /**
   * Always the last event, exactly once. `finishReason` is the service's for the answer's last response (`stop`, or
   * e.g. `length` when the answer was cut short); absent when no model answered (a transcript, a refusal, a failure).
   */
  | { type: 'done'; usage: ReplyUsage; finishReason?: string };

export type ReplyCapability = 'chat' | 'describe' | 'transcribe' | 'summarize';

/** One finished reply, for metrics: what it was, how it ended, how fast the first words came. */
export interface ReplyRecord {
  platform: string;
  capability: ReplyCapability;
  outcome: 'ok' | ErrorKind;
  /** Time from the call to the first text (or transcript); absent when none came. */
  firstTextMs?: number;
  durationMs: number;
  usage: ReplyUsage;
}

/** What the engine returns for a message; iterate it once. Breaking out of the loop cancels the reply. */
export type ReplyStream = AsyncIterable<ReplyEvent>;
