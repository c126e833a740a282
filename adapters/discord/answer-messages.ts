import { Routes, type APIMessage, type REST } from 'discord.js';
import type { AnswerControls, AnswerEditor, ShownAnswer } from '../../src/platform/platform.ts';
import { splitMarkdown } from '../../src/streaming/markdown-split.ts';
import { answerButtons } from './answer-buttons.ts';
import { isUnknownMessage, MESSAGE_LIMIT, textBody } from './discord-surface.ts';
import { NO_MENTIONS_BODY } from './mentions.ts';
import { sourcesEmbed } from './sources-embed.ts';

/** Shown for an answer without any text. */
export const EMPTY_ANSWER = '_(The model returned an empty answer.)_';

/** An answer's messages in a channel, as the core's controls change them: its buttons, and the version it shows. */
export class AnswerMessages implements AnswerEditor {
  readonly #rest: REST;
  readonly #channelId: string;
  readonly #questionKey: string;

  constructor(rest: REST, channelId: string, questionKey: string) {
    this.#rest = rest;
    this.#channelId = channelId;
    this.#questionKey = questionKey;
  }

  async showControls(messageKeys: readonly string[], controls: AnswerControls): Promise<void> {
    const last = messageKeys.at(-1);
    if (last === undefined) return;
    await this.#rest.patch(Routes.channelMessage(this.#channelId, last), {
      body: { components: answerButtons(this.#questionKey, controls), allowed_mentions: NO_MENTIONS_BODY },
    });
  }

  async rewrite(messageKeys: readonly string[], { text, citations = [] }: ShownAnswer, controls: AnswerControls): Promise<string[]> {
    const parts = splitMarkdown(text.trim() === '' ? EMPTY_ANSWER : text, MESSAGE_LIMIT);
    const buttons = answerButtons(this.#questionKey, controls);
    const sources = citations.length > 0 ? [sourcesEmbed(citations)] : [];
    const keys: string[] = [];
    for (const [i, part] of parts.entries()) {
      const { content, flags } = textBody(part);
      const last = i === parts.length - 1;
      const body = { content, flags: flags ?? 0, components: last ? buttons : [], embeds: last ? sources : [], allowed_mentions: NO_MENTIONS_BODY };
      const existing = messageKeys[i];
      if (existing !== undefined) {
        await this.#rest.patch(Routes.channelMessage(this.#channelId, existing), { body });
        keys.push(existing);
      } else {
        const message = (await this.#rest.post(Routes.channelMessages(this.#channelId), { body })) as APIMessage;
        keys.push(message.id);
      }
    }
    for (const surplus of messageKeys.slice(parts.length)) {
      await this.#rest.delete(Routes.channelMessage(this.#channelId, surplus)).catch((error: unknown) => {
        if (!isUnknownMessage(error)) throw error;
      });
    }
    return keys;
  }
}
