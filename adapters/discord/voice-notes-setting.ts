import { stringOption, type CommandDefinition, type CommandOption } from '../../commands/command.ts';
import { VOICE_NOTE_CHOICES, type VoiceNoteMode, type VoiceNotePolicy } from './voice-note-policy.ts';

const VOICE_NOTES_OPTION: CommandOption = {
  name: 'voice_notes',
  description: 'Voice messages in this server not addressed to Herald: answer, transcribe only, or off',
  type: 'string',
  choices: VOICE_NOTE_CHOICES,
};

const EFFECT: Record<VoiceNoteMode, string> = {
  always: 'Herald transcribes and answers every voice message in this server.',
  'when-asked': 'Herald transcribes voice messages in this server and answers only those addressed to it.',
  off: 'Voice messages are off in this server (the default): Herald leaves them alone unless they are addressed to it (a reply to Herald, a mention, or in its thread).',
};

function isVoiceNoteMode(value: string | undefined): value is VoiceNoteMode {
  return VOICE_NOTE_CHOICES.some((choice) => choice.value === value);
}

/** The voice-message line under /settings' answer, once a choice given is saved; undefined where it has no say. */
async function voiceNotesLine(choice: string | undefined, guildId: string | undefined, policy?: VoiceNotePolicy): Promise<string | undefined> {
  if (guildId === undefined) {
    return choice === undefined
      ? undefined
      : '🎙️ Voice messages in direct messages are always transcribed and answered; voice_notes applies to servers.';
  }
  if (!policy) return undefined;
  if (isVoiceNoteMode(choice)) await policy.set(guildId, choice);
  return `🎙️ ${isVoiceNoteMode(choice) ? 'Saved. ' : ''}${EFFECT[await policy.get(guildId)]}`;
}

/**
 * /settings as Discord offers it: the core's settings plus the server's voice-message choice, which the
 * adapter keeps itself. Without a policy (registering commands) only the option is added.
 */
export function withVoiceNotes(settings: CommandDefinition, policy?: VoiceNotePolicy): CommandDefinition {
  return {
    ...settings,
    options: [...settings.options, VOICE_NOTES_OPTION],
    async run(ctx, services) {
      const line = await voiceNotesLine(stringOption(ctx, VOICE_NOTES_OPTION.name), ctx.workspaceId, policy);
      if (line === undefined) return settings.run(ctx, services);
      await settings.run({ ...ctx, reply: (text, options) => ctx.reply(`${text}\n${line}`, options) }, services);
    },
  };
}
