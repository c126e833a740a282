import type { Message, MessageContextMenuCommandInteraction, ModalSubmitInteraction } from 'discord.js';
import { messageActions } from '../../commands/index.ts';
import type { MessageActionDefinition } from '../../commands/message-action.ts';
import { runMessageAction } from '../../commands/run-message-action.ts';
import { actionModal, modalAnswers, modalTarget } from './action-modal.ts';
import type { CommandHandlerDeps } from './command-handler.ts';
import { invocationContext } from './command-context.ts';
import { interactionRefusal, refuseInteraction, trackAnswer } from './interaction-gate.ts';
import { targetMessage } from './target-message.ts';

const GONE = "I can't read that message any more: it was deleted, or I can't see its channel.";

/** The message a modal was opened on, read again: the submit may reach an instance that never saw the menu press. */
async function fetchTarget(interaction: ModalSubmitInteraction, messageId: string): Promise<Message | undefined> {
  const channel = interaction.channel ?? (interaction.channelId ? await interaction.client.channels.fetch(interaction.channelId) : null);
  if (!channel?.isTextBased()) return undefined;
  return channel.messages.fetch(messageId).catch(() => undefined);
}

/**
 * Runs message actions from Discord's message commands: at once, or, for an action with a prompt, once the presser
 * submits its modal. Answers are the presser's alone unless they ask in the modal to post them for everyone.
 */
export class MessageActionHandler {
  readonly #deps: CommandHandlerDeps;
  readonly #byName = new Map(messageActions.map((action) => [action.name, action]));
  readonly #byId = new Map(messageActions.map((action) => [action.id, action]));

  constructor(deps: CommandHandlerDeps) {
    this.#deps = deps;
  }

  async handle(interaction: MessageContextMenuCommandInteraction | ModalSubmitInteraction): Promise<void> {
    const { logger } = this.#deps;
    const target = interaction.isModalSubmit() ? modalTarget(interaction.customId) : undefined;
    // A modal that is not an action's is for another handler to answer.
    if (interaction.isModalSubmit() && !target) return;
    const action = interaction.isModalSubmit() ? target && this.#byId.get(target.actionId) : this.#byName.get(interaction.commandName);
    if (!action) {
      const name = interaction.isModalSubmit() ? 'that action' : `"${interaction.commandName}"`;
      return refuseInteraction(interaction, `I don't know ${name}; the commands may need registering again.`, logger);
    }
    const refusal = await interactionRefusal(interaction, this.#deps);
    if (refusal) return refuseInteraction(interaction, refusal, logger);
    if (interaction.isMessageContextMenuCommand() && action.prompt) {
      await interaction.showModal(actionModal(action, interaction.targetId));
      return;
    }
    const work = (interaction.isModalSubmit() ? this.#submitted(interaction, action, target!.messageId) : this.#pressed(interaction, action)).catch(
      (error: unknown) => logger.error({ err: error, action: action.id }, 'answering a message action failed'),
    );
    await trackAnswer(work, `discord ${action.name}`, this.#deps.hooks);
  }

  async #pressed(interaction: MessageContextMenuCommandInteraction, action: MessageActionDefinition): Promise<void> {
    const ctx = {
      ...invocationContext(interaction, this.#deps),
      target: targetMessage(interaction.targetMessage),
      ephemeral: true,
      locale: interaction.locale,
    };
    await runMessageAction(action, ctx, this.#deps.core);
  }

  async #submitted(interaction: ModalSubmitInteraction, action: MessageActionDefinition, messageId: string): Promise<void> {
    const answers = modalAnswers(interaction);
    const invocation = invocationContext(interaction, this.#deps);
    // Reading the message again can outlast the 3 s acknowledgement window.
    await invocation.defer({ ephemeral: !answers.public });
    const message = await fetchTarget(interaction, messageId);
    if (!message) return invocation.reply(GONE, { ephemeral: true });
    const ctx = { ...invocation, target: targetMessage(message), ephemeral: !answers.public, locale: interaction.locale, input: answers.input };
    await runMessageAction(action, ctx, this.#deps.core);
  }
}
