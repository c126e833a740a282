import type { ReplyTarget } from './reply-part.ts';
import type { SlackApi } from './slack-api.ts';

export interface FileToShare {
  name: string;
  data: Buffer;
  title?: string;
}

/** Uploads a file (files.uploadV2: upload URL, bytes, complete) and shares it where the reply goes. */
export async function shareFile(api: SlackApi, target: ReplyTarget, file: FileToShare, comment?: string): Promise<void> {
  await api.budget.take('files.getUploadURLExternal');
  await api.budget.take('files.completeUploadExternal');
  const destination = target.threadTs ? { channel_id: target.channel, thread_ts: target.threadTs } : { channel_id: target.channel };
  await api.client.files.uploadV2({
    ...destination,
    file: file.data,
    filename: file.name,
    title: file.title ?? file.name,
    ...(comment && { initial_comment: comment }),
  });
}
