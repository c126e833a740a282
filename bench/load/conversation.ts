import { textReply } from '../../test/fakes/service/text-answer.ts';

/** One user waiting for one streamed answer on a platform fake. */
export interface Conversation {
  platform: 'discord' | 'slack';
  /** The user posts the prompt. */
  send(): void | Promise<void>;
  /** Whether the platform now shows the whole expected answer as Herald's reply. */
  complete(): boolean;
  /** Herald's messages in the conversation beyond one per question: duplicate answers. */
  extraReplies(): number;
}

/** The prompt that makes the emulator answer with `words` words, and the text it will answer. */
export function longAnswer(words: number): { prompt: string; text: string } {
  const prompt = `long ${words}`;
  return { prompt, text: textReply([{ role: 'user', text: prompt, images: [], audios: [], toolCalls: [] }]) };
}
