/** Words people put before a name when they call someone: "hey Herald", "ok Herald". */
const GREETINGS = new Set(['hey', 'hi', 'hello', 'ok', 'okay', 'oh', 'yo', 'so', 'um', 'uh', 'excuse', 'me', 'and', 'well']);
const MAX_GREETING_WORDS = 2;
const WORD = /[\p{L}\p{N}']+/gu;

interface Word {
  text: string;
  end: number;
}

/** What a heard turn says once Herald's name is looked for at its start. */
export interface NameMatch {
  /** The turn starts with the name (after a greeting such as "hey"), allowing for small recognition slips. */
  addressed: boolean;
  /** The words after the name (the whole transcript when it does not start with it). */
  rest: string;
}

/**
 * Whether a transcript starts with Herald's name, matched as speech recognition writes it: any case and
 * punctuation, a greeting before it, a name heard as two words ("her ald") or misspelt by a letter or two
 * ("Harold", "Gerald").
 */
export function matchName(transcript: string, name: string): NameMatch {
  const nameWords = words(name).map((word) => word.text);
  const wanted = nameWords.join('');
  const heard = words(transcript.slice(0, 300));
  if (wanted === '' || heard.length === 0) return { addressed: false, rest: transcript.trim() };
  for (let skip = 0; skip <= Math.min(MAX_GREETING_WORDS, heard.length - 1); skip++) {
    if (skip > 0 && !GREETINGS.has(heard[skip - 1]!.text)) break;
    for (let count = 1; count <= nameWords.length + 1 && skip + count <= heard.length; count++) {
      const joined = heard
        .slice(skip, skip + count)
        .map((word) => word.text)
        .join('');
      if (distance(joined, wanted) <= tolerance(wanted)) {
        const rest = transcript.slice(heard[skip + count - 1]!.end).replace(/^[\s\p{P}]+/u, '');
        return { addressed: true, rest: rest.trim() };
      }
    }
  }
  return { addressed: false, rest: transcript.trim() };
}

function words(text: string): Word[] {
  return [...text.toLowerCase().matchAll(WORD)].map((match) => ({ text: match[0].replace(/'/g, ''), end: match.index + match[0].length }));
}

/** Letters a recognizer may get wrong in a name of this length. */
function tolerance(name: string): number {
  if (name.length <= 3) return 0;
  return name.length <= 5 ? 1 : 2;
}

/** Levenshtein distance, bounded inputs (names and a few words). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
