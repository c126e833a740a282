import { pino } from 'pino';

/** The logger tests hand to Herald: silent, unless HERALD_TEST_LOG names a level (e.g. debug) to watch one failing test. */
export const silentLogger = pino({ level: process.env.HERALD_TEST_LOG ?? 'silent' });
