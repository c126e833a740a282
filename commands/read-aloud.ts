import type { MessageActionDefinition } from './message-action.ts';
import { MAX_TEXT_CHARS, speakToFile, withSpeechQuota } from './say.ts';

export const readAloud: MessageActionDefinition = {
  id: 'read_aloud',
  name: 'Read aloud',
  description: 'Hear this message read aloud',
  async run(ctx, services) {
    const text = ctx.target.text.trim();
    if (text === '') return ctx.reply('That message has no text to read aloud.');
    if (text.length > MAX_TEXT_CHARS) return ctx.reply(`That message is ${text.length} characters long; I read aloud at most ${MAX_TEXT_CHARS}.`);
    await withSpeechQuota(ctx, services, (settings, usage) => speakToFile(ctx, services, { text, voice: settings.voice, sing: false }, usage));
  },
};
