import type { PlatformState } from '../../src/platform/platform-state.ts';

/**
 * What Herald does with a voice message in a server that is not addressed to it (replies to Herald, mentions and
 * messages in its threads are always answered, as are direct messages): `always` transcribes and answers it,
 * `when-asked` posts its transcript only, `off` (the default: nobody's voice is sent to the service unless a server
 * admin says so) leaves it alone. The core's settings have no field for this, so it is stored per server here.
 */
export type VoiceNoteMode = 'always' | 'when-asked' | 'off';

export const VOICE_NOTE_CHOICES: readonly { name: string; value: VoiceNoteMode }[] = [
  { name: 'transcribe and answer them', value: 'always' },
  { name: 'transcribe them, answer only when addressed to Herald', value: 'when-asked' },
  { name: 'off: leave them alone unless addressed to Herald', value: 'off' },
];

const DEFAULT_MODE: VoiceNoteMode = 'off';

export class VoiceNotePolicy {
  readonly #store: PlatformState;

  constructor(store: PlatformState) {
    this.#store = store;
  }

  async get(guildId: string): Promise<VoiceNoteMode> {
    return (await this.#store.get<VoiceNoteMode>(key(guildId))) ?? DEFAULT_MODE;
  }

  async set(guildId: string, value: VoiceNoteMode): Promise<void> {
    if (value === DEFAULT_MODE) await this.#store.delete(key(guildId));
    else await this.#store.set(key(guildId), value);
  }
}

function key(guildId: string): string {
  return `discord:voice-notes:${guildId}`;
}
