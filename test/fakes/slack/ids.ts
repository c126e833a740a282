import { randomBytes, randomInt, randomUUID } from 'node:crypto';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A Slack-shaped object id: a one-letter kind prefix and ten upper-case alphanumerics (C0123ABCDE). */
export function slackId(prefix: string): string {
  let id = prefix;
  for (let i = 0; i < 10; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

function digits(n: number): string {
  let out = String(randomInt(1, 10));
  for (let i = 1; i < n; i++) out += String(randomInt(10));
  return out;
}

export function botToken(): string {
  return `xoxb-${digits(12)}-${digits(13)}-${randomBytes(12).toString('base64url').slice(0, 24)}`;
}

export function appToken(appId: string): string {
  return `xapp-1-${appId}-${digits(13)}-${randomBytes(32).toString('hex')}`;
}

export function hexSecret(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

export function verificationToken(): string {
  return randomBytes(18).toString('base64url').replace(/[-_]/g, 'x').slice(0, 24);
}

export function eventId(): string {
  return slackId('Ev');
}

export function envelopeId(): string {
  return randomUUID();
}

export function triggerId(): string {
  return `${digits(13)}.${digits(12)}.${randomBytes(16).toString('hex')}`;
}

/**
 * Message timestamps: "seconds.microseconds", unique and strictly increasing within one fake, the way Slack's
 * ts doubles as a message id inside a channel.
 */
export class TsClock {
  #lastMicros = 0n;

  next(): string {
    let micros = BigInt(Date.now()) * 1000n;
    if (micros <= this.#lastMicros) micros = this.#lastMicros + 1n;
    this.#lastMicros = micros;
    const s = micros.toString();
    return `${s.slice(0, -6)}.${s.slice(-6)}`;
  }
}

/** The ts of an instant (ms since the epoch), for an event dated other than now. */
export function tsAt(ms: number): string {
  const s = (BigInt(Math.round(ms)) * 1000n).toString();
  return `${s.slice(0, -6)}.${s.slice(-6)}`;
}

/** Orders two ts strings exactly (a double cannot hold sixteen significant digits). */
export function compareTs(a: string, b: string): number {
  const x = tsMicros(a);
  const y = tsMicros(b);
  if (x === undefined || y === undefined) return a.localeCompare(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function tsMicros(ts: string): bigint | undefined {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(ts);
  if (!match) return undefined;
  return BigInt(match[1] + (match[2] ?? '').padEnd(6, '0'));
}
