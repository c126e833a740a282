import { describe, expect, it } from 'vitest';
import { ask } from '../../commands/ask.ts';
import type { CommandAttachment, CommandContext, CommandServices, OptionValue } from '../../commands/command.ts';
import { runCommand } from '../../commands/run-command.ts';
import { collectReply, type CollectedReply } from '../helpers/collect-reply.ts';
import { ConversationEngine } from '../../src/conversation/engine.ts';
import type { ChatMessage } from '../../src/service/types.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { pdfFile } from '../fixtures/documents/pdf-file.ts';
import { testConfig } from '../conversation/fake-adapter.ts';
import { silentLogger } from '../helpers/logger.ts';
import { fakeChat } from '../conversation/fake-chat.ts';

/** A file attached to the command, counting the downloads of its bytes. */
function attachment(name: string, contentType: string | undefined, data: Buffer) {
  const file = { name, ...(contentType && { contentType }), size: data.length, downloads: 0 };
  return Object.assign(file, {
    fetch: async () => {
      file.downloads += 1;
      return data;
    },
  }) satisfies CommandAttachment;
}

async function runAsk(options: Record<string, OptionValue>) {
  const config = testConfig();
  const chat = fakeChat(() => ({ text: 'ok' }));
  const services: CommandServices = {
    config,
    logger: silentLogger,
    engine: new ConversationEngine({ config, logger: silentLogger, store: new MemoryStore(), chat: chat.chat }),
    store: new MemoryStore(),
    speak: async () => {
      throw new Error('not used');
    },
  };
  let reply: CollectedReply | undefined;
  const ctx: CommandContext = {
    platform: 'discord',
    workspaceId: 'guild-1',
    channelId: 'channel-1',
    invocationId: 'i1',
    user: { id: 'u1', displayName: 'Ada', isAdmin: false },
    isDirect: false,
    options: new Map(Object.entries(options)),
    uploadLimitBytes: 1024,
    voiceMessages: false,
    defer: async () => {},
    reply: async () => {},
    replyStream: async (stream) => {
      reply = await collectReply(stream);
    },
    upload: async () => {},
  };
  await runCommand(ask, ctx, services);
  const user = chat.requests.at(-1)?.messages.findLast((m) => m.role === 'user');
  return { reply: reply!, request: chat.requests.at(-1), user: user && textOf(user) };
}

function textOf(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  return content!.map((p) => (p.type === 'text' ? p.text : `<${p.type}>`)).join(' ');
}

describe('/ask with a file', () => {
  it('offers a file option next to the image option', () => {
    expect(ask.options.map((o) => o.name)).toEqual(['question', 'image', 'file', 'search', 'reasoning']);
    expect(ask.options.find((o) => o.name === 'file')).toEqual({
      name: 'file',
      description: 'A text, code or PDF file to ask about',
      type: 'attachment',
    });
  });

  it('asks about a code file or a PDF with its text', async () => {
    const code = await runAsk({ question: 'why does this fail?', file: attachment('main.py', 'text/x-python', Buffer.from('print(1 / 0)\n')) });
    expect(code.user).toBe('[Ada]: why does this fail?\n[file "main.py"]\n```python\nprint(1 / 0)\n```');
    expect(code.reply.text).toBe('ok');

    const pdf = await runAsk({ question: 'total?', file: attachment('invoice.pdf', 'application/pdf', pdfFile([['Total: 42 EUR']])) });
    expect(pdf.user).toBe('[Ada]: total?\n[file "invoice.pdf", 1 page]\n```\nTotal: 42 EUR\n```');
  });

  it('sends an image given as the file to the vision model, with the image option too', async () => {
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    const { request, user } = await runAsk({
      question: 'which is bigger?',
      image: attachment('a.png', 'image/png', png),
      file: attachment('b.png', 'image/png', png),
    });
    expect(request!.model).toBe(testConfig().models.vision);
    expect(user).toBe('[Ada]: which is bigger? <image_url> <image_url>');
  });

  it('does not download a file of a kind it cannot read, says it was skipped and answers the question', async () => {
    const video = attachment('demo.mp4', 'video/mp4', Buffer.alloc(16));
    const { reply, user } = await runAsk({ question: 'hello?', file: video });
    expect(video.downloads).toBe(0);
    expect(user).toBe('[Ada]: hello?');
    expect(reply.notices).toEqual([
      { type: 'notice', code: 'file_skipped', text: 'I skipped "demo.mp4": besides images and audio, I can only read text, code and PDF files.' },
    ]);
  });
});
