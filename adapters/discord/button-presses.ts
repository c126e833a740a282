import { MessageFlags, PermissionFlagsBits, type ButtonInteraction, type Interaction } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import { APPROVAL_REFUSALS, PRESS_REFUSALS } from '../../src/platform/platform.ts';
import type { QuestionFlow } from '../../src/platform/question-flow.ts';
import { pressedButton } from './answer-buttons.ts';
import { AnswerMessages } from './answer-messages.ts';
import { pressedApproval } from './approval-buttons.ts';
import type { MessageHandler } from './message-handler.ts';
import { NO_MENTIONS } from './mentions.ts';

/**
 * Presses of Herald's buttons — the controls on answers, Approve and Deny on approvals — handed to the core. Each is
 * acknowledged at once (the message is then changed by edits, on whichever instance), so Discord's 3 seconds never
 * run out while the store or the core decide; a press that does not count is told to the presser alone.
 */
export class ButtonPresses {
  readonly #flow: QuestionFlow;
  readonly #messages: MessageHandler;
  readonly #logger: Logger;

  constructor(deps: { flow: QuestionFlow; messages: MessageHandler; logger: Logger }) {
    this.#flow = deps.flow;
    this.#messages = deps.messages;
    this.#logger = deps.logger;
  }

  async handle(interaction: Interaction): Promise<void> {
    if (!interaction.isButton()) return;
    const answer = pressedButton(interaction.customId);
    const approval = answer ? undefined : pressedApproval(interaction.customId);
    // Every unsharded process hears every press: one takes it.
    if ((!answer && !approval) || !(await this.#flow.firstDelivery(`interaction:${interaction.id}`))) return;
    await interaction.deferUpdate();
    const refusal = answer ? await this.#answerPress(interaction, answer) : await this.#approvalPress(interaction, approval!);
    if (refusal) {
      await interaction
        .followUp({ content: refusal, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS })
        .catch((error: unknown) => this.#logger.warn({ err: error }, 'telling the presser failed'));
    }
  }

  async #answerPress(interaction: ButtonInteraction, pressed: NonNullable<ReturnType<typeof pressedButton>>): Promise<string | undefined> {
    const outcome = await this.#flow
      .pressed({
        ...pressed,
        userId: interaction.user.id,
        // In a DM nobody moderates: only the asker may press.
        mayModerate: interaction.inGuild() && interaction.memberPermissions.has(PermissionFlagsBits.ManageMessages),
        editor: new AnswerMessages(interaction.client.rest, interaction.channelId, pressed.questionKey),
        question: () => this.#messages.questionAt(interaction.client, interaction.channelId, pressed.questionKey),
      })
      .catch((error: unknown) => {
        // A message of the answer deleted meanwhile, or Discord refusing an edit: the press cannot be carried out.
        this.#logger.warn({ err: error, action: pressed.action, question: pressed.questionKey }, 'carrying out a press failed');
        return 'gone' as const;
      });
    this.#logger.debug({ action: pressed.action, question: pressed.questionKey, outcome }, 'answer control pressed');
    return outcome === 'done' ? undefined : PRESS_REFUSALS[outcome];
  }

  async #approvalPress(interaction: ButtonInteraction, pressed: NonNullable<ReturnType<typeof pressedApproval>>): Promise<string | undefined> {
    const outcome = await this.#flow.approvalPressed({ ...pressed, userId: interaction.user.id }).catch((error: unknown) => {
      this.#logger.warn({ err: error, approval: pressed.approvalId }, 'an approval press could not be decided');
      return 'gone' as const;
    });
    this.#logger.debug({ approval: pressed.approvalId, answer: pressed.answer, outcome }, 'approval pressed');
    return outcome === 'done' ? undefined : APPROVAL_REFUSALS[outcome];
  }
}
