import type { IncomingHttpHeaders } from 'node:http';

/** Checks the two auth styles of spec §5; returns why it failed, or null when the key is right. */
export function authProblem(headers: IncomingHttpHeaders, apiKey: string): string | null {
  const apiKeyHeader = headers['api-key'];
  const authorization = headers.authorization;
  if (typeof apiKeyHeader === 'string') {
    return apiKeyHeader === apiKey ? null : 'Incorrect API key provided in the api-key header.';
  }
  if (typeof authorization === 'string') {
    const match = /^Bearer (.+)$/.exec(authorization);
    if (!match) return 'The Authorization header must be "Bearer <API_KEY>".';
    return match[1] === apiKey ? null : 'Incorrect API key provided in the Authorization header.';
  }
  if (headers['x-api-key'] !== undefined) {
    return 'The x-api-key header is not accepted; send "api-key: <API_KEY>" or "Authorization: Bearer <API_KEY>".';
  }
  return 'Missing API key: send "api-key: <API_KEY>" or "Authorization: Bearer <API_KEY>".';
}
