import type { ShutdownCoordinator } from '../ops/shutdown.ts';
import type { Platform } from './platform.ts';
import type { PlatformHooks } from './platform-hooks.ts';

/** Connects one platform with the hooks every platform shares. */
export type PlatformStarter = (hooks: PlatformHooks) => Promise<Platform>;

/**
 * Starts each configured platform with the same hooks, in order, and registers its shutdown once: intake stops as
 * the drain begins, the connection closes once replies are over. Returns what started, for the start-up line.
 */
export async function startPlatforms(
  starters: readonly PlatformStarter[],
  hooks: PlatformHooks,
  coordinator: ShutdownCoordinator,
): Promise<Platform[]> {
  const started: Platform[] = [];
  for (const start of starters) {
    const platform = await start(hooks);
    coordinator.register('stop-intake', platform.description, () => platform.stopIntake());
    coordinator.register('close-platforms', platform.description, () => platform.stop());
    started.push(platform);
  }
  return started;
}
