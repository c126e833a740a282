import type { Config } from '../config/config.ts';
import type { Logger } from '../log/logger.ts';
import type { ServiceClient } from '../service/client.ts';

/** What every capability needs: the client, the validated config and a logger. */
export interface CapabilityDeps {
  client: ServiceClient;
  config: Config;
  logger: Logger;
}
