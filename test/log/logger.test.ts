import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { redactText } from '../../src/log/redact.ts';

function capture(secrets: string[]) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', secrets, destination: { write: (line: string) => void lines.push(line) } });
  return { logger, text: () => lines.join('') };
}

describe('logging', () => {
  it('redacts auth headers, token fields and known secret values wherever they appear', () => {
    const { logger, text } = capture(['sk-live-0123456789']);
    logger.info(
      {
        request: { headers: { authorization: 'Bearer sk-live-0123456789', 'api-key': 'sk-live-0123456789' } },
        token: 'discord-bot-token-value',
        note: 'retrying with sk-live-0123456789',
      },
      'request sent',
    );
    logger.error({ err: new Error('upstream said: invalid key sk-live-0123456789') }, 'failed');
    const out = text();
    expect(out).not.toContain('sk-live-0123456789');
    expect(out).not.toContain('discord-bot-token-value');
    expect(out).toContain('request sent');
    expect(out).toContain('[redacted]');
  });

  it('masks Slack and bearer tokens even when they were not declared', () => {
    const masked = redactText('xoxb-1111-2222-abcdefgh xapp-1-A0-123456789 Authorization: Bearer abc.def.ghijklmnop', []);
    expect(masked).not.toMatch(/xoxb-1111|xapp-1-A0|abc\.def/);
    expect(masked).toContain('Bearer [redacted]');
  });
});
