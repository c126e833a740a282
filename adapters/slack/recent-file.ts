/**
 * Slack slash commands cannot carry a file, so /transcribe and /describe take the newest recording or image the
 * user shared in the conversation they run the command in (among its latest messages).
 */
import type { CommandAttachment } from '../../commands/command.ts';
import { fetchFileBytes, fileKind, fileName, type SlackFile } from './incoming-files.ts';
import type { SlackApi } from './slack-api.ts';

const LOOK_BACK = 50;

export type WantedKind = 'audio' | 'image';

interface HistoryMessage {
  user?: string;
  files?: SlackFile[];
}

function matches(file: SlackFile, wanted: WantedKind): boolean {
  const kind = fileKind(file);
  return wanted === 'image' ? kind === 'image' : kind === 'audio' || kind === 'voice';
}

export async function findRecentFile(api: SlackApi, channel: string, userId: string, wanted: WantedKind): Promise<SlackFile | undefined> {
  const history = await api.call('conversations.history', undefined, (c) => c.conversations.history({ channel, limit: LOOK_BACK }));
  for (const message of (history.messages ?? []) as HistoryMessage[]) {
    if (message.user !== userId) continue;
    const file = [...(message.files ?? [])].reverse().find((f) => matches(f, wanted));
    if (file) return file;
  }
  return undefined;
}

/** A file as a command option: its bytes are downloaded (with the bot token) only when the command reads them. */
export function asAttachment(api: SlackApi, file: SlackFile): CommandAttachment {
  return {
    name: fileName(file),
    ...(file.mimetype && { contentType: file.mimetype }),
    size: file.size ?? 0,
    fetch: () => fetchFileBytes(api, file),
  };
}

export function howToShare(command: string, wanted: WantedKind): string {
  const noun = wanted === 'audio' ? 'voice clip or audio file' : 'image';
  const article = wanted === 'audio' ? 'a' : 'an';
  return (
    `Slack commands can't carry files, so /${command} uses the newest ${noun} you shared in this conversation, and I found none among its latest messages. ` +
    `Share ${article} ${noun} here and run /${command} again — or mention me in the message you share it with.`
  );
}
