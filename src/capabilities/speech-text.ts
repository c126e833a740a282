const LEADING_STYLE = /^\s*<style>([^<]*)<\/style>/;

/**
 * The text to speak with its style tag (spec §2.7): `<style>a b</style>text` for styles, and for
 * singing `<style>sing</style>` as the only tag. A style tag already at the start of `text` is merged
 * into ours, never doubled.
 */
export function speechText(text: string, style?: string | readonly string[], sing = false): string {
  const existing = LEADING_STYLE.exec(text);
  const body = existing ? text.slice(existing[0].length) : text;
  if (sing) return `<style>sing</style>${body.trimStart()}`;
  const names = [...(existing ? existing[1]!.split(/\s+/) : []), ...(typeof style === 'string' ? style.split(/\s+/) : (style ?? []))]
    .map((name) => name.replace(/[<>]/g, '').trim())
    .filter((name) => name !== '');
  const unique = [...new Set(names)];
  return unique.length > 0 ? `<style>${unique.join(' ')}</style>${body.trimStart()}` : body;
}
