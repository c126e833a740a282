import { MessageFlags, PermissionFlagsBits, type ButtonInteraction, type Interaction } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import { PRESS_REFUSALS, type PressOutcome } from '../../src/platform/platform.ts';
import type { QuestionFlow } from '../../src/platform/question-flow.ts';
import { pressedButton } from './answer-buttons.ts';
import { AnswerMessages } from './answer-messages.ts';
import type { MessageHandler } from './message-handler.ts';
import { NO_MENTIONS } from './mentions.ts';

/**
 * Presses of the buttons on Herald's answers, handed to the core. Each is acknowledged at once (the message is
 * then changed by edits), so Discord's 3 seconds never run out while the store or the core decide; a refusal is
 * told to the presser alone.
 */
export class AnswerPresses {
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
    const pressed = pressedButton(interaction.customId);
    // Every unsharded process hears every press: one takes it.
    if (!pressed || !(await this.#flow.firstDelivery(`interaction:${interaction.id}`))) return;
    await interaction.deferUpdate();
    const outcome = await this.#flow
      .pressed({
        ...pressed,
        userId: interaction.user.id,
        // In a DM nobody moderates: only the asker may press.
        mayModerate: interaction.inGuild() && interaction.memberPermissions.has(PermissionFlagsBits.ManageMessages),
        editor: new AnswerMessages(interaction.client.rest, interaction.channelId, pressed.questionKey),
        question: () => this.#messages.questionAt(interaction.client, interaction.channelId, pressed.questionKey),
      })
      .catch((error: unknown): PressOutcome => {
        // A message of the answer deleted meanwhile, or Discord refusing an edit: the press cannot be carried out.
        this.#logger.warn({ err: error, action: pressed.action, question: pressed.questionKey }, 'carrying out a press failed');
        return 'gone';
      });
    this.#logger.debug({ action: pressed.action, question: pressed.questionKey, outcome }, 'answer control pressed');
    if (outcome !== 'done') await this.#tell(interaction, PRESS_REFUSALS[outcome]);
  }

  async #tell(interaction: ButtonInteraction, content: string): Promise<void> {
    await interaction
      .followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS })
      .catch((error: unknown) => this.#logger.warn({ err: error }, 'telling the presser failed'));
  }
}
