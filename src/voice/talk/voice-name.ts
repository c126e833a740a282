/** Words people put before a name when they call someone: "hey Herald", "ok Herald". */
const GREETINGS = new Set(['hey', 'hi', 'hello', 'ok', 'okay', 'oh', 'yo', 'so', 'um', 'uh', 'excuse', 'me', 'and', 'well']);
const MAX_GREETING_WORDS = 2;
const WORD = /[\p{L}\p{N}']+/gu;

/**
 * Whether a transcript starts with Herald's name (after a greeting such as "hey"), matched as speech
 * recognition writes it: any case and punctuation, a name heard as two words ("her ald") or misspelt by a
 * letter or two ("Harold", "Gerald").
 */
export function startsWithName(transcript: string, name: string): boolean {
  const nameWords = words(name);
  const wanted = nameWords.join('');
  const heard = words(transcript.slice(0, 300));
  if (wanted === '' || heard.length === 0) return false;
  for (let skip = 0; skip <= Math.min(MAX_GREETING_WORDS, heard.length - 1); skip++) {
    if (skip > 0 && !GREETINGS.has(heard[skip - 1]!)) break;
    for (let count = 1; count <= nameWords.length + 1 && skip + count <= heard.length; count++) {
      if (distance(heard.slice(skip, skip + count).join(''), wanted) <= tolerance(wanted)) return true;
    }
  }
  return false;
}

function words(text: string): string[] {
  return [...text.toLowerCase().matchAll(WORD)].map((match) => match[0].replace(/'/g, ''));
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
