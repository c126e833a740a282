import { MessageFlags, type ButtonInteraction, type Interaction } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import { APPROVAL_REFUSALS, type ApprovalPressOutcome } from '../../src/platform/platform.ts';
import type { QuestionFlow } from '../../src/platform/question-flow.ts';
import { pressedApproval } from './approval-buttons.ts';
import { NO_MENTIONS } from './mentions.ts';

/**
 * Presses of Approve and Deny, handed to the core. Each is acknowledged at once (the instance waiting for it edits the
 * message); a press that does not count is told to the presser alone.
 */
export class ApprovalPresses {
  readonly #flow: QuestionFlow;
  readonly #logger: Logger;

  constructor(deps: { flow: QuestionFlow; logger: Logger }) {
    this.#flow = deps.flow;
    this.#logger = deps.logger;
  }

  async handle(interaction: Interaction): Promise<void> {
    if (!interaction.isButton()) return;
    const pressed = pressedApproval(interaction.customId);
    // Every unsharded process hears every press: one takes it.
    if (!pressed || !(await this.#flow.firstDelivery(`interaction:${interaction.id}`))) return;
    await interaction.deferUpdate();
    const outcome = await this.#flow.approvalPressed({ ...pressed, userId: interaction.user.id }).catch((error: unknown): ApprovalPressOutcome => {
      this.#logger.warn({ err: error, approval: pressed.approvalId }, 'an approval press could not be decided');
      return 'gone';
    });
    this.#logger.debug({ approval: pressed.approvalId, answer: pressed.answer, outcome }, 'approval pressed');
    if (outcome !== 'done') await this.#tell(interaction, APPROVAL_REFUSALS[outcome]);
  }

  async #tell(interaction: ButtonInteraction, content: string): Promise<void> {
    await interaction
      .followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS })
      .catch((error: unknown) => this.#logger.warn({ err: error }, 'telling the presser failed'));
  }
}
