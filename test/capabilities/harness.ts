import { loadConfig, type Env } from '../../src/config/config.ts';
import type { CapabilityDeps } from '../../src/capabilities/deps.ts';
import { captureLogger } from '../service/harness.ts';
import { createServiceClient } from '../../src/service/client.ts';
import type { Emulator } from '../fakes/service/emulator.ts';

/** Capability deps wired to the emulator through the real config loader (no .env file read). */
export function depsFor(emu: Emulator, env: Env = {}): CapabilityDeps & { lines: string[] } {
  const config = loadConfig({ API_BASE_URL: emu.url, API_KEY: emu.apiKey, ...env }, { envFile: '/nonexistent/.env' });
  const { logger, lines } = captureLogger([config.api.key]);
  const client = createServiceClient(config, logger);
  return { client, config, logger, lines };
}

/** The JSON body of the emulator's last recorded request. */
export function lastBody(emu: Emulator): Record<string, any> {
  return emu.requests.at(-1)!.body as Record<string, any>;
}
