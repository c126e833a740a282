import { approvalsOf } from './command.ts';
import type { MessageActionDefinition } from './message-action.ts';
import { messageAbout } from './message-action.ts';

// As much as a message quote carries (src/conversation/user-turn.ts), Discord's longest message.
const MAX_TEXT_CHARS = 4000;

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/** The language a locale (`fr`, `pt-BR`, `es-419`) names, in English; English when there is none or it is unknown. */
export function languageOf(locale: string | undefined): string {
  if (!locale) return 'English';
  try {
    return languageNames.of(locale) ?? 'English';
  } catch {
    return 'English';
  }
}

export const translateMessage: MessageActionDefinition = {
  id: 'translate',
  name: 'Translate',
  description: 'Translate this message into your language',
  async run(ctx, { engine }) {
    const text = ctx.target.text.trim();
    if (text === '') return ctx.reply('That message has no text to translate.');
    if (text.length > MAX_TEXT_CHARS) return ctx.reply(`That message is ${text.length} characters long; I translate at most ${MAX_TEXT_CHARS}.`);
    const language = languageOf(ctx.locale);
    const ask = `Translate that message into ${language}. Answer with the translation alone; if it is already in ${language}, say so.`;
    await ctx.replyStream(engine.handle(messageAbout(ctx, { text: ask }), approvalsOf(ctx)));
  },
};
