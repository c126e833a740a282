import type { Citation } from '../../src/service/types.ts';
import type { ReplyEvent, ReplyStream, ReplyUsage } from '../../src/conversation/types.ts';

export interface CollectedReply {
  text: string;
  reasoning: string;
  citations: Citation[];
  transcripts: { name: string; text: string }[];
  attachments: Extract<ReplyEvent, { type: 'attachment' }>[];
  notices: Extract<ReplyEvent, { type: 'notice' }>[];
  statuses: string[];
  error?: Extract<ReplyEvent, { type: 'error' }>;
  usage: ReplyUsage;
  events: ReplyEvent[];
}

/** Reads a whole reply stream into one object, for tests and benchmarks that check a reply as a whole. */
export async function collectReply(stream: ReplyStream): Promise<CollectedReply> {
  const reply: Omit<CollectedReply, 'usage'> & { usage?: ReplyUsage } = {
    text: '',
    reasoning: '',
    citations: [],
    transcripts: [],
    attachments: [],
    notices: [],
    statuses: [],
    events: [],
  };
  for await (const event of stream) {
    reply.events.push(event);
    switch (event.type) {
      case 'text':
        reply.text += event.delta;
        break;
      case 'reasoning':
        reply.reasoning += event.delta;
        break;
      case 'citations':
        reply.citations = event.citations;
        break;
      case 'transcript':
        reply.transcripts.push({ name: event.name, text: event.text });
        break;
      case 'attachment':
        reply.attachments.push(event);
        break;
      case 'notice':
        reply.notices.push(event);
        break;
      case 'status':
        reply.statuses.push(event.text);
        break;
      case 'error':
        reply.error = event;
        break;
      case 'done':
        reply.usage = event.usage;
        break;
    }
  }
  if (!reply.usage) throw new Error('the reply stream ended without a done event');
  return reply as CollectedReply;
}
