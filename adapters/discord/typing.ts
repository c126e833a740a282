import type { SendableChannels } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';

/** Discord shows "is typing…" for about 10 seconds per request. */
const TYPING_RENEW_MS = 8_000;

export interface Typing {
  stop(): void;
}

/** Shows the typing indicator now and renews it until stopped (when the first text is posted). */
export function startTyping(channel: SendableChannels, logger: Logger, renewMs = TYPING_RENEW_MS): Typing {
  let stopped = false;
  const send = () => {
    if (stopped) return;
    channel.sendTyping().catch((error: unknown) => logger.debug({ err: error }, 'typing indicator failed'));
  };
  send();
  const timer = setInterval(send, renewMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
