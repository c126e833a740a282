import { constants } from 'node:os';
import type { Logger } from '../log/logger.ts';
import type { ShutdownCoordinator } from './shutdown.ts';

export interface SignalHandlerOptions {
  /** Default SIGTERM and SIGINT. */
  signals?: NodeJS.Signals[];
  /** Default process.exit; the process exits even if a connection or timer would keep it alive. */
  exit?: (code: number) => void;
}

/**
 * The entry point calls this once. The first signal starts the bounded shutdown and exits when it is over:
 * 0 when everything finished cleanly, 1 when something had to be cut off or failed. A second signal exits at
 * once with 128 + the signal number (so does any signal once a shutdown started some other way). Returns a
 * function that removes the handlers.
 */
export function installSignalHandlers(coordinator: ShutdownCoordinator, logger: Logger, options: SignalHandlerOptions = {}): () => void {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const exit = options.exit ?? ((code: number) => process.exit(code));

  const onSignal = (signal: NodeJS.Signals) => {
    if (coordinator.isShuttingDown) {
      logger.warn({ signal, inflight: coordinator.inflight }, 'second signal: exiting now');
      exit(128 + (constants.signals[signal] ?? 0));
      return;
    }
    logger.info({ signal, timeoutMs: coordinator.timeoutMs }, 'signal received: shutting down');
    void coordinator.shutdown(signal).then((result) => {
      exit(result.clean ? 0 : 1);
    });
  };

  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
