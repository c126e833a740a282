import { stringOption, type CommandDefinition, type CommandOption } from '../../commands/command.ts';
import { VOICE_NOTE_CHOICES, type VoiceNoteAnswers, type VoiceNotePolicy } from './voice-note-policy.ts';

const VOICE_NOTES_OPTION: CommandOption = {
  name: 'voice_notes',
  description: 'Voice messages in this server: always answer them, or only when addressed to Herald',
  type: 'string',
  choices: VOICE_NOTE_CHOICES,
};

function isVoiceNoteAnswers(value: string | undefined): value is VoiceNoteAnswers {
  return VOICE_NOTE_CHOICES.some((choice) => choice.value === value);
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
      const guildId = ctx.workspaceId;
      if (!policy || guildId === undefined) return settings.run(ctx, services);
      const choice = stringOption(ctx, VOICE_NOTES_OPTION.name);
      if (isVoiceNoteAnswers(choice)) await policy.set(guildId, choice);
      const current = await policy.get(guildId);
      const label = VOICE_NOTE_CHOICES.find((c) => c.value === current)?.name ?? current;
      const line = `\nVoice messages in this server: ${label}${isVoiceNoteAnswers(choice) ? ' (saved)' : ''}`;
      await settings.run({ ...ctx, reply: (text, options) => ctx.reply(`${text}${line}`, options) }, services);
    },
  };
}
