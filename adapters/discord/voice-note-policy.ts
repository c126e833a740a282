import type { Store } from '../../src/store/store.ts';

/**
 * When voice messages in a server are answered after their transcript: `always`, or `when-asked` (the
 * default): only when addressed to Herald (a reply to it, a message in its thread). Direct messages are always
 * answered. The core's settings have no field for this, so it is stored per server here.
 */
export type VoiceNoteAnswers = 'always' | 'when-asked';

export const VOICE_NOTE_CHOICES: readonly { name: string; value: VoiceNoteAnswers }[] = [
  { name: 'always answer them', value: 'always' },
  { name: 'answer when addressed to Herald', value: 'when-asked' },
];

export class VoiceNotePolicy {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async get(guildId: string): Promise<VoiceNoteAnswers> {
    return (await this.#store.get<VoiceNoteAnswers>(key(guildId))) ?? 'when-asked';
  }

  async set(guildId: string, value: VoiceNoteAnswers): Promise<void> {
    if (value === 'when-asked') await this.#store.delete(key(guildId));
    else await this.#store.set(key(guildId), value);
  }
}

function key(guildId: string): string {
  return `discord:voice-notes:${guildId}`;
}
