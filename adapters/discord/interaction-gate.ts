import { MessageFlags, type RepliableInteraction } from 'discord.js';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { PlatformHooks } from '../../src/platform/platform-hooks.ts';
import { directMessageAccess, isAllowed } from './access-policy.ts';
import { memberRoleIds } from './command-context.ts';
import { NO_MENTIONS } from './mentions.ts';

const DM_REFUSAL = "Herald answers direct messages only from members of the servers it's set up for.";

interface GateDeps {
  core: Core;
  logger: Logger;
  hooks: PlatformHooks;
}

/** The channel an interaction came from, with its parent for a thread (what access lists name). */
export function interactionChannelIds(interaction: RepliableInteraction): string[] {
  const channel = interaction.channel;
  return channel?.isThread() && channel.parentId ? [channel.id, channel.parentId] : [interaction.channelId ?? ''];
}

/** Why Herald will not act on this interaction (restarting, not allowed in this server, channel or DM), if it won't. */
export async function interactionRefusal(interaction: RepliableInteraction, { core, hooks }: GateDeps): Promise<string | undefined> {
  if (hooks.shutdown?.drainingSignal.aborted) return 'Herald is restarting; please try again in a minute.';
  const access = core.config.discord?.access;
  const subject = { guildId: interaction.guildId ?? undefined, channelIds: interactionChannelIds(interaction), roleIds: memberRoleIds(interaction) };
  if (!isAllowed(access, subject)) return "Herald isn't available here.";
  if (interaction.guildId === null && !(await directMessageAccess(interaction.client, access).allows(interaction.user.id))) return DM_REFUSAL;
  return undefined;
}

/** Answers the interaction with a refusal only its user sees; a failure to is logged, not thrown. */
export async function refuseInteraction(interaction: RepliableInteraction, content: string, logger: Logger): Promise<void> {
  await interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS }).then(
    () => undefined,
    (error: unknown) => logger.warn({ err: error }, 'refusing an interaction failed'),
  );
}

/** Runs an answer as in-flight work: counted in the metrics and awaited by a graceful shutdown. */
export async function trackAnswer(work: Promise<void>, label: string, hooks: PlatformHooks): Promise<void> {
  hooks.metrics?.inflightReplies?.inc();
  try {
    await (hooks.shutdown ? hooks.shutdown.track(work, label) : work);
  } finally {
    hooks.metrics?.inflightReplies?.dec();
  }
}
