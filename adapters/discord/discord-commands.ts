import type { CommandDefinition } from '../../commands/command.ts';
import { commands } from '../../commands/index.ts';
import type { VoiceNotePolicy } from './voice-note-policy.ts';
import { withVoiceNotes } from './voice-notes-setting.ts';

/** The platform-neutral commands as Discord runs them (with the voice-message setting on /settings). */
export function discordCommands(voiceNotes?: VoiceNotePolicy): CommandDefinition[] {
  return commands.map((command) => (command.name === 'settings' ? withVoiceNotes(command, voiceNotes) : command));
}
