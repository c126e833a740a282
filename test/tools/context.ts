import type { ToolContext } from '../../src/tools/types.ts';
import { silentLogger } from '../helpers/logger.ts';

export function toolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    timezone: 'Europe/Berlin',
    now: () => new Date('2025-01-14T23:30:00Z'),
    platform: 'test',
    workspaceId: 'guild-1',
    channelId: 'channel-1',
    userId: 'user-1',
    userName: 'Alice',
    logger: silentLogger,
    ...overrides,
  };
}
