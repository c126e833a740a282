import type { Config } from '../src/config/config.ts';
import type { ConversationEngine } from '../src/conversation/engine.ts';
import type { ReplyStream } from '../src/conversation/types.ts';
import type { Logger } from '../src/log/logger.ts';
import type { SpeechInput } from '../src/capabilities/synthesize.ts';
import type { SpeechFormat, SpokenAudio } from '../src/speech/speak.ts';
import type { VoiceControl } from '../src/voice/voice-control.ts';

/** A file the user attached to a command; fetched only when the command needs its bytes. */
export interface CommandAttachment {
  name: string;
  contentType?: string;
  size: number;
  fetch(): Promise<Buffer>;
}

export type OptionValue = string | number | boolean | CommandAttachment;

export interface CommandOption {
  name: string;
  description: string;
  type: 'string' | 'integer' | 'boolean' | 'attachment';
  required?: boolean;
  choices?: ReadonlyArray<{ name: string; value: string }>;
  maxLength?: number;
  minValue?: number;
  maxValue?: number;
}

/** A file a command sends back; `voiceMessage` asks the platform to show it as a native voice message. */
export interface OutgoingFile {
  name: string;
  mime: string;
  data: Buffer;
  voiceMessage?: { durationSeconds: number; waveform: string };
}

/**
 * What an adapter gives a command: who asked where, the options, and replies already bound to the
 * platform (like Bolt's `say`), so commands never see platform objects.
 */
export interface CommandContext {
  platform: string;
  workspaceId?: string;
  channelId: string;
  threadId?: string;
  /** The platform's id of this invocation (interaction id, trigger id). */
  invocationId: string;
  user: { id: string; displayName: string; isAdmin: boolean };
  isDirect: boolean;
  options: ReadonlyMap<string, OptionValue>;
  /** Largest file this reply may carry. */
  uploadLimitBytes: number;
  /** Whether `upload` can post a native voice message (Ogg Opus with waveform). */
  voiceMessages: boolean;
  /** Speaking in the server's voice channels, where the platform has them (not in DMs). */
  voice?: VoiceControl;
  /** Acknowledges now and answers later; adapters call it before slow commands. */
  defer(options?: { ephemeral?: boolean }): Promise<void>;
  reply(text: string, options?: { ephemeral?: boolean }): Promise<void>;
  replyStream(stream: ReplyStream): Promise<void>;
  upload(file: OutgoingFile, text?: string): Promise<void>;
}

/** The core services commands use; built once by the entry point. */
export interface CommandServices {
  config: Config;
  logger: Logger;
  engine: ConversationEngine;
  speak(input: SpeechInput, format: SpeechFormat): Promise<SpokenAudio>;
}

export interface CommandDefinition {
  name: string;
  description: string;
  options: readonly CommandOption[];
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
