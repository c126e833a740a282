/** Token shapes that must never be printed even when we were not told the value. */
const TOKEN_PATTERNS: RegExp[] = [
  /\bxox[abposr]-[A-Za-z0-9-]{8,}/g,
  /\bxapp-[A-Za-z0-9-]{8,}/g,
  /(Bearer|Bot)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b[MN][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b/g,
];

const MASK = '[redacted]';

/** Replaces every known secret value and every token-shaped string in `text`. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join(MASK);
  }
  for (const pattern of TOKEN_PATTERNS) {
    out = out.replace(pattern, (match) => (/^(bearer|bot)\s/i.test(match) ? `${match.split(/\s+/)[0]} ${MASK}` : MASK));
  }
  return out;
}

/** Header and field names whose values are secrets wherever they appear in a logged object. */
export const SECRET_FIELDS = [
  'authorization',
  'api-key',
  'apiKey',
  'api_key',
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'password',
  'cookie',
  'x-slack-signature',
];
