import type { Config } from '../src/config/config.ts';
import type { ConversationEngine } from '../src/conversation/engine.ts';
import type { HandleOptions, ReplyStream } from '../src/conversation/types.ts';
import type { Logger } from '../src/log/logger.ts';
import type { SpeechInput } from '../src/capabilities/synthesize.ts';
import type { SpeechFormat, SpokenAudio } from '../src/speech/speak.ts';
import type { ScheduleService } from '../src/schedules/schedule-service.ts';
import type { UserTimezones } from '../src/schedules/user-timezones.ts';
import type { Store } from '../src/store/store.ts';
import type { ApprovalOutcome, ApprovalRequest } from '../src/tools/types.ts';
import type { VoiceControl } from '../src/voice/voice-control.ts';
import { VoiceError } from '../src/voice/voice-error.ts';
import type { WorkspaceHistory } from '../src/workspace/workspace-history.ts';

/** A file the user attached to a command; fetched only when the command needs its bytes. */
export interface CommandAttachment {
  name: string;
  contentType?: string;
  size: number;
  fetch(): Promise<Buffer>;
}

/** What an option holds; a channel option holds the channel's platform id. */
export type OptionValue = string | number | boolean | CommandAttachment;

/** Kinds of channel a channel option accepts: text (and announcement) channels, threads, voice (and stage) channels. */
export type ChannelKind = 'text' | 'thread' | 'voice';

export interface CommandOption {
  name: string;
  description: string;
  type: 'string' | 'integer' | 'boolean' | 'attachment' | 'channel';
  required?: boolean;
  choices?: ReadonlyArray<{ name: string; value: string }>;
  maxLength?: number;
  minValue?: number;
  maxValue?: number;
  /** The kinds a channel option offers. */
  channelKinds?: readonly ChannelKind[];
}

/** An action picked first (`/narrate stop`), with options of its own. */
export interface CommandSubcommand {
  name: string;
  description: string;
  options: readonly CommandOption[];
}

/** A file a command sends back; `voiceMessage` asks the platform to show it as a native voice message. */
export interface OutgoingFile {
  name: string;
  mime: string;
  data: Buffer;
  voiceMessage?: { durationSeconds: number; waveform: string };
}

/**
 * Who invoked Herald where, and replies already bound to the platform (like Bolt's `say`): what commands and
 * message actions share, so neither sees platform objects.
 */
export interface InvocationContext {
  platform: string;
  workspaceId?: string;
  channelId: string;
  threadId?: string;
  /** The platform's id of this invocation (interaction id, trigger id). */
  invocationId: string;
  /** `timezone`: the user's IANA zone where the platform says it (Slack's users.info). */
  user: { id: string; displayName: string; isAdmin: boolean; timezone?: string };
  isDirect: boolean;
  /** Largest file this reply may carry. */
  uploadLimitBytes: number;
  /** Whether `upload` can post a native voice message (Ogg Opus with waveform). */
  voiceMessages: boolean;
  /** Speaking in the server's voice channels, where the platform has them (not in DMs). */
  voice?: VoiceControl;
  /** The channels' history this user may read, from where the command was run (summaries). */
  workspace?: WorkspaceHistory;
  /** Acknowledges now and answers later; adapters call it before slow commands. */
  defer(options?: { ephemeral?: boolean }): Promise<void>;
  reply(text: string, options?: { ephemeral?: boolean }): Promise<void>;
  /** Renders a reply as it streams; `ephemeral` shows it to the user alone, where the platform can. */
  replyStream(stream: ReplyStream, options?: { ephemeral?: boolean }): Promise<void>;
  upload(file: OutgoingFile, text?: string): Promise<void>;
  /**
   * Asks the invoker to approve a tool call beside the reply (to them alone where the reply is theirs alone) and waits
   * for the answer. Absent where nobody can be asked: such a call is not run.
   */
  approve?(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome>;
}

/** What an adapter gives a command: the invocation, and the options given. */
export interface CommandContext extends InvocationContext {
  /** The action picked, for a command with subcommands (always one of them). */
  subcommand?: string;
  /** The options given (of the subcommand picked, if any). */
  options: ReadonlyMap<string, OptionValue>;
}

/** The core services commands use; built once by the entry point. */
export interface CommandServices {
  config: Config;
  logger: Logger;
  engine: ConversationEngine;
  /** Where quotas and usage are counted, shared by every instance. */
  store: Store;
  speak(input: SpeechInput, format: SpeechFormat): Promise<SpokenAudio>;
  /** Reminders and recurring prompts, where the entry point runs a scheduler. */
  schedules?: ScheduleService;
  /** The time zone each user reads times in (with `schedules`). */
  timezones?: UserTimezones;
}

export interface CommandDefinition {
  name: string;
  description: string;
  /** Empty for a command with subcommands (platforms take either, not both). */
  options: readonly CommandOption[];
  /** Actions to pick from first, each with its own options; `run` sees the pick as `ctx.subcommand`. */
  subcommands?: readonly CommandSubcommand[];
  /** Only server/workspace administrators may run it. */
  adminOnly?: boolean;
  /** Slower than the platform's acknowledgement window: the adapter defers before `run`. */
  slow?: boolean;
  /** Replies only the invoking user sees, where the platform can. */
  ephemeral?: boolean;
  /** Only meaningful where the bot can join voice channels (`ctx.voice`); platforms without them leave it out. */
  voiceChannels?: boolean;
  run(ctx: CommandContext, services: CommandServices): Promise<void>;
}

/** How the engine asks this invoker to approve tool calls, for `engine.handle`. */
export function approvalsOf(ctx: InvocationContext): Pick<HandleOptions, 'approve'> {
  return ctx.approve ? { approve: ctx.approve } : {};
}

/** The options a command takes once `subcommand` is picked (its own options when it has no subcommands). */
export function optionsOf(definition: CommandDefinition, subcommand?: string): readonly CommandOption[] {
  if (!definition.subcommands) return definition.options;
  return definition.subcommands.find((s) => s.name === subcommand)?.options ?? [];
}

export function stringOption(ctx: CommandContext, name: string): string | undefined {
  const value = ctx.options.get(name);
  return typeof value === 'string' ? value : undefined;
}

export function integerOption(ctx: CommandContext, name: string): number | undefined {
  const value = ctx.options.get(name);
  return typeof value === 'number' ? value : undefined;
}

export function booleanOption(ctx: CommandContext, name: string): boolean | undefined {
  const value = ctx.options.get(name);
  return typeof value === 'boolean' ? value : undefined;
}

export function attachmentOption(ctx: CommandContext, name: string): CommandAttachment | undefined {
  const value = ctx.options.get(name);
  return typeof value === 'object' ? value : undefined;
}

/**
 * Runs a voice action and answers with its result; when voice refuses the user (not in its channel, no Move
 * Members) it tells them alone instead. Anything else is rethrown.
 */
export async function answerVoiceAction<T>(ctx: InvocationContext, action: () => Promise<T>, answer: (result: T) => Promise<void>): Promise<void> {
  let result: T;
  try {
    result = await action();
  } catch (error) {
    if (!(error instanceof VoiceError) || error.code !== 'not_permitted') throw error;
    return ctx.reply(error.message, { ephemeral: true });
  }
  return answer(result);
}
