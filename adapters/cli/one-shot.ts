import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { Core } from '../../src/core.ts';
import type { IncomingMessage } from '../../src/conversation/types.ts';
import { speechFormatFromFileName } from '../../src/speech/speak.ts';
import { attachFiles } from './attached-files.ts';
import { UsageError } from './cli-error.ts';
import { writeReply, type TerminalOutput } from './terminal-reply.ts';

type Args = string[];

function cliMessage(text: string, extra: Partial<IncomingMessage> = {}): IncomingMessage {
  const id = `cli-${process.pid}-${Date.now()}`;
  return {
    platform: 'cli',
    channelId: 'terminal',
    threadId: id,
    messageId: id,
    author: { id: 'local', displayName: 'you' },
    text,
    isDirect: true,
    ...extra,
  };
}

function parse(args: Args, options: ParseArgsOptionsConfig, command: string) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}

export async function chatCommand(args: Args, core: Core, io: TerminalOutput): Promise<void> {
  const { values, positionals } = parse(
    args,
    {
      file: { type: 'string', multiple: true },
      image: { type: 'string', multiple: true },
      search: { type: 'boolean' },
      'no-search': { type: 'boolean' },
      think: { type: 'boolean' },
      'no-think': { type: 'boolean' },
      reasoning: { type: 'boolean' },
    },
    'chat',
  );
  const text = positionals.join(' ').trim();
  const imageFiles = (values.image as string[] | undefined) ?? [];
  const files = (values.file as string[] | undefined) ?? [];
  if (!text && imageFiles.length + files.length === 0) throw new UsageError('chat: what should I answer? Give the question as TEXT, or a --file');
  const attachments = await attachFiles(files);
  const images = await Promise.all(imageFiles.map(async (file) => ({ name: basename(file), data: await readFile(file) })));
  if (images.length > 0) attachments.images = [...images, ...(attachments.images ?? [])];
  const webSearch = values.search ? 'force' : values['no-search'] ? 'off' : undefined;
  const thinking = values.think ? true : values['no-think'] ? false : undefined;
  const message = cliMessage(text, { ...attachments, flags: { wantsReasoning: Boolean(values.reasoning) } });
  await writeReply(core.engine.handle(message, { overrides: { webSearch, thinking } }), io, { showReasoning: Boolean(values.reasoning) });
}

export async function describeCommand(args: Args, core: Core, io: TerminalOutput): Promise<void> {
  const { positionals } = parse(args, {}, 'describe');
  const [file, ...prompt] = positionals;
  if (!file) throw new UsageError('describe: which IMAGE?');
  const message = cliMessage(prompt.join(' ').trim(), { images: [{ name: basename(file), data: await readFile(file) }] });
  await writeReply(core.engine.handle(message), io);
}

export async function transcribeCommand(args: Args, core: Core, io: TerminalOutput): Promise<void> {
  const { values, positionals } = parse(args, { language: { type: 'string' } }, 'transcribe');
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new UsageError('transcribe: give exactly one AUDIO file');
  const language = values.language as string | undefined;
  if (language !== undefined && language !== 'auto' && language !== 'zh' && language !== 'en') {
    throw new UsageError(`transcribe: --language must be auto, zh or en, not "${language}"`);
  }
  const message = cliMessage('', {
    audio: [{ name: basename(file), data: await readFile(file), isVoiceMessage: false }],
    flags: { transcriptOnly: true },
  });
  await writeReply(core.engine.handle(message, { overrides: { language } }), io);
}

export async function sayCommand(args: Args, core: Core, io: TerminalOutput): Promise<void> {
  const { values, positionals } = parse(
    args,
    { voice: { type: 'string' }, style: { type: 'string' }, sing: { type: 'boolean' }, output: { type: 'string', short: 'o' } },
    'say',
  );
  const text = positionals.join(' ').trim();
  if (!text) throw new UsageError('say: what should I say? Give the TEXT');
  const output = values.output as string | undefined;
  if (!output) throw new UsageError('say: name the output file with -o OUT.wav, OUT.pcm or OUT.ogg');
  const format = speechFormatFromFileName(output);
  if (!format) throw new UsageError(`say: ${output} must end in .wav, .pcm or .ogg`);
  const audio = await core.speak(
    { text, voice: values.voice as string | undefined, style: values.style as string | undefined, sing: Boolean(values.sing) },
    format,
  );
  await writeFile(output, audio.data);
  io.err.write(`wrote ${output}: ${audio.durationSeconds.toFixed(2)} s, ${Math.ceil(audio.data.length / 1024)} KB\n`);
}
