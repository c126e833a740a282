/**
 * A reply only its asker sees: Slack cannot edit an ephemeral message as it streams, so the core's stream is read
 * whole and sent as one chat.postEphemeral, its text in sections and its sources as context blocks under it.
 */
import type { ReplyStream } from '../../src/conversation/types.ts';
import type { Citation } from '../../src/service/types.ts';
import { splitMarkdown } from '../../src/streaming/markdown-split.ts';
import { citationBlocks } from './citation-blocks.ts';
import { defuseMentions } from './defuse-mentions.ts';
import { toMrkdwn } from './mrkdwn.ts';
import type { SlackRuntime } from './runtime.ts';

// Block Kit: a section's text holds at most 3000 characters, a message at most 50 blocks.
const SECTION_CHARS = 3000;
const MAX_BLOCKS = 50;
const FALLBACK_CHARS = 300;

export interface EphemeralTarget {
  channel: string;
  threadTs?: string;
  userId: string;
}

export async function sendEphemeralReply(rt: SlackRuntime, stream: ReplyStream, target: EphemeralTarget): Promise<void> {
  let text = '';
  let citations: Citation[] = [];
  const closing: string[] = [];
  for await (const event of stream) {
    if (event.type === 'text') text += event.delta;
    else if (event.type === 'citations') citations = event.citations;
    else if (event.type === 'notice') closing.push(`_${event.text}_`);
    else if (event.type === 'error') closing.push(`⚠️ ${event.message}`);
  }
  const markdown = [text.trim(), ...closing].filter((part) => part !== '').join('\n\n') || '_(Nothing to show.)_';
  const mrkdwn = toMrkdwn(defuseMentions(markdown));
  const sections = splitMarkdown(mrkdwn, SECTION_CHARS).map((part) => ({ type: 'section', text: { type: 'mrkdwn', text: part } }));
  const blocks = [...sections, ...citationBlocks(citations)].slice(0, MAX_BLOCKS);
  const fallback = mrkdwn.length > FALLBACK_CHARS ? `${mrkdwn.slice(0, FALLBACK_CHARS - 1)}…` : mrkdwn;
  await rt.api.call('chat.postEphemeral', target.channel, (client) =>
    client.chat.postEphemeral({
      channel: target.channel,
      user: target.userId,
      ...(target.threadTs && { thread_ts: target.threadTs }),
      text: fallback,
      blocks,
    }),
  );
}
