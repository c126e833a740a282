import { splitTokens } from './tokens.ts';

export interface Limited {
  text: string;
  /** `stop` when it ended normally or at a stop sequence, `length` when cut at the token limit. */
  reason: 'stop' | 'length';
  stopSequence?: string;
}

/** Cuts a reply at the first stop sequence, then at maxTokens tokens. */
export function limitText(text: string, stop: string[], maxTokens: number | undefined): Limited {
  let out = text;
  let stopSequence: string | undefined;
  for (const sequence of stop) {
    const at = sequence === '' ? -1 : out.indexOf(sequence);
    if (at >= 0) {
      out = out.slice(0, at);
      stopSequence = sequence;
    }
  }
  const pieces = splitTokens(out);
  if (maxTokens !== undefined && pieces.length > maxTokens) {
    return { text: pieces.slice(0, maxTokens).join(''), reason: 'length' };
  }
  return { text: out, reason: 'stop', stopSequence };
}
