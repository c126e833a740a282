import { createHmac } from 'node:crypto';

/** Slack's v0 request signature: "v0=" + hex HMAC-SHA256(signing secret, "v0:{timestamp}:{raw body}"). */
export function slackSignature(signingSecret: string, timestampSec: number, body: string): string {
  const hmac = createHmac('sha256', signingSecret);
  hmac.update(`v0:${timestampSec}:${body}`);
  return `v0=${hmac.digest('hex')}`;
}

export interface SigningOptions {
  /** Sign with a secret other than the app's, as a forger would. */
  forge?: boolean;
  /** Date the request more than five minutes back (signed correctly for that time), as a replay would be. */
  stale?: boolean;
}

export function signedHeaders(signingSecret: string, body: string, options: SigningOptions = {}): Record<string, string> {
  const now = Math.floor(Date.now() / 1000);
  const timestamp = options.stale ? now - 6 * 60 : now;
  const secret = options.forge ? `${signingSecret}-forged` : signingSecret;
  return {
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': slackSignature(secret, timestamp, body),
  };
}
