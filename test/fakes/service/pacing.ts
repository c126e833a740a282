import { splitTokens } from './tokens.ts';

/** Streaming speed; 0 means as fast as possible. Mutable on the emulator object. */
export interface Pace {
  /** Text and reasoning tokens per second. */
  tokensPerSecond: number;
  /** Pause between speech-synthesis audio chunks. */
  ttsChunkIntervalMs: number;
}

export interface Delta {
  text: string;
  delayMs: number;
}

const groupSizes = [1, 2, 3, 2];

/** Splits text into small deltas of 1-3 tokens, each delayed by its share of the token rate. */
export function textDeltas(text: string, pace: Pace): Delta[] {
  const pieces = splitTokens(text);
  const out: Delta[] = [];
  for (let at = 0, group = 0; at < pieces.length; group += 1) {
    const size = groupSizes[group % groupSizes.length]!;
    out.push({
      text: pieces.slice(at, at + size).join(''),
      delayMs: pace.tokensPerSecond > 0 ? (size * 1000) / pace.tokensPerSecond : 0,
    });
    at += size;
  }
  return out;
}
