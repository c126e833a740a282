import type { Config } from '../config/config.ts';
import { SpendingGuard } from '../conversation/quotas.ts';
import { SettingsStore } from '../conversation/settings.ts';
import { emptyUsage } from '../conversation/usage-meter.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import type { ChatMessageForNarration } from './narration.ts';

/**
 * Reading a message aloud costs a speech request: it is charged to its author and their server like a question
 * (the server's own stricter limits included), and a message whose author or server has spent the budget is not read.
 */
export function narrationBudget(
  platform: string,
  store: Store,
  config: Config,
  logger: Logger,
): (message: ChatMessageForNarration) => Promise<boolean> {
  const spending = new SpendingGuard(store, config);
  const settings = new SettingsStore(store);
  return async (message) => {
    const subject = { platform, userId: message.authorId, workspaceId: message.guildId };
    const { quotas } = await settings.resolve({ platform, workspaceId: message.guildId, channelId: message.channelId }, config);
    const denial = await spending.admit(subject, quotas);
    if (denial) {
      logger.info({ guildId: message.guildId, userId: message.authorId, code: denial.code }, 'voice: message not narrated, its budget is spent');
      return false;
    }
    await spending.record(subject, { ...emptyUsage(), serviceCalls: 1 });
    return true;
  };
}
