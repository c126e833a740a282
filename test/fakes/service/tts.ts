export const speechSampleRate = 24000;

export interface Speech {
  /** 24 kHz mono 16-bit little-endian samples. */
  pcm: Buffer;
  seconds: number;
}

const singingNames = new Set(['唱歌', 'sing', 'singing']);
const baseFrequencies = [220, 330, 440];
const scale = [0, 2, 4, 5, 7, 9, 11, 12];

function rate(styleText: string): number {
  const lower = styleText.toLowerCase();
  if (/speed up|fast|快/.test(lower)) return 45;
  if (/slow down|slow|慢/.test(lower)) return 80;
  return 60;
}

/**
 * Synthesises a deterministic, audible waveform: one tone pulse per spoken character (60 ms each;
 * 45 ms with a "speed up"/"fast" style, 80 ms with "slow down"/"slow"), pitch by voice (the voice
 * list's order: 220, 330, 440 Hz), and a rising scale when singing.
 */
export function synthesize(text: string, voiceIndex: number): Speech {
  const styleMatch = /^<style>([^<]*)<\/style>/.exec(text);
  const styleText = styleMatch?.[1] ?? '';
  const styles = styleText.split(/[\s,，、;；|/]+/).filter((s) => s !== '');
  const singing = styles.length === 1 && singingNames.has(styles[0]!.toLowerCase());
  // Inline cues ([cough], (sobbing)) and whitespace take no time.
  const spoken = text.slice(styleMatch?.[0].length ?? 0).replace(/\[[^\]]*\]|\([^)]*\)|（[^）]*）|\s/g, '');
  const chars = Math.max(1, Array.from(spoken).length);
  const msPerChar = rate(styleText);
  const perChar = Math.round((speechSampleRate * msPerChar) / 1000);
  const pcm = Buffer.alloc(chars * perChar * 2);
  const base = baseFrequencies[voiceIndex] ?? 262;
  for (let c = 0; c < chars; c += 1) {
    const frequency = singing ? base * 2 ** (scale[c % scale.length]! / 12) : base;
    for (let i = 0; i < perChar; i += 1) {
      const envelope = Math.sin((Math.PI * i) / perChar);
      const sample = 0.3 * envelope * Math.sin((2 * Math.PI * frequency * (c * perChar + i)) / speechSampleRate);
      pcm.writeInt16LE(Math.round(sample * 32767), (c * perChar + i) * 2);
    }
  }
  return { pcm, seconds: (chars * perChar) / speechSampleRate };
}
