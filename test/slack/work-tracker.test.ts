import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { WorkTracker } from '../../adapters/slack/runtime.ts';
import { CancelledError } from '../../src/errors.ts';

/** A logger whose lines the test reads back. */
function recordingLogger() {
  const lines: Array<{ level: number; msg: string; work?: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

const ERROR = 50;
const INFO = 30;

describe('Slack work tracker', () => {
  it('logs work stopped because its question was deleted at info, and a real failure at error', async () => {
    const { logger, lines } = recordingLogger();
    const tracker = new WorkTracker(logger);
    tracker.run('mention', async () => {
      throw new CancelledError('The question was deleted.');
    });
    tracker.run('thread follow-up', async () => {
      throw new Error('chat.postMessage failed');
    });
    await tracker.stop();
    expect(lines.map(({ level, msg, work }) => ({ level, msg, work }))).toEqual([
      { level: INFO, msg: 'Slack work stopped', work: 'mention' },
      { level: ERROR, msg: 'Slack work failed', work: 'thread follow-up' },
    ]);
  });

  it('logs work that ends with the shutdown it was stopped by at info', async () => {
    const { logger, lines } = recordingLogger();
    const tracker = new WorkTracker(logger);
    tracker.run('mention', (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })));
    await tracker.stop();
    expect(lines.map(({ level, msg }) => ({ level, msg }))).toEqual([{ level: INFO, msg: 'Slack work stopped' }]);
  });
});
