import { MessageFlags, type RepliableInteraction } from 'discord.js';
import type { EditBody, MessageBody } from './discord-surface.ts';
import { NO_MENTIONS } from './mentions.ts';

// A voice message cannot be made by editing, so a deferred response is filled with this before one follows.
const VOICE_CAPTION = '🔊';

type ReplyFlag = MessageFlags.SuppressEmbeds | MessageFlags.IsVoiceMessage | MessageFlags.Ephemeral;

/**
 * The messages answering one interaction (a command, a menu's action, a modal's submission): the first fills the interaction's response (the reply itself,
 * or the deferred "thinking…" message), later ones are followups. Edits go through the interaction webhook.
 */
export class InteractionReplies {
  readonly interaction: RepliableInteraction;
  #originalFilled = false;
  #ephemeral = false;

  constructor(interaction: RepliableInteraction) {
    this.interaction = interaction;
  }

  async defer(ephemeral: boolean): Promise<void> {
    if (this.interaction.deferred || this.interaction.replied) return;
    await this.interaction.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
    this.#ephemeral = ephemeral;
  }

  /** Posts the next message of the answer; returns its id. `ephemeral` counts only for the first message. */
  async post(body: MessageBody, ephemeral = false): Promise<string> {
    const interaction = this.interaction;
    if (!interaction.deferred && !interaction.replied) {
      this.#ephemeral = ephemeral;
      this.#originalFilled = true;
      const response = await interaction.reply({ ...body, flags: this.#flags(body), allowedMentions: NO_MENTIONS, withResponse: true });
      return response.resource?.message?.id ?? (await interaction.fetchReply()).id;
    }
    if (!this.#originalFilled) {
      if (body.flags === MessageFlags.IsVoiceMessage) await this.post({ content: VOICE_CAPTION });
      else {
        const { flags, ...rest } = body;
        const message = await interaction.editReply({ ...rest, ...(flags !== undefined && { flags }), allowedMentions: NO_MENTIONS });
        this.#originalFilled = true;
        return message.id;
      }
    }
    const message = await interaction.followUp({ ...body, flags: this.#flags(body), allowedMentions: NO_MENTIONS });
    return message.id;
  }

  async edit(messageId: string, body: EditBody): Promise<void> {
    await this.interaction.editReply({ ...body, message: messageId, allowedMentions: NO_MENTIONS });
  }

  #flags(body: MessageBody): ReplyFlag[] {
    return [...(body.flags !== undefined ? [body.flags] : []), ...(this.#ephemeral ? [MessageFlags.Ephemeral as const] : [])];
  }
}
