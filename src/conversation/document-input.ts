import { MediaError } from '../errors.ts';
import { READABLE_DOCUMENTS } from '../media/document/decode-text.ts';
import { readDocument, type DocumentText } from '../media/document/read-document.ts';
import { pdfPageImages, SCANNED_PAGE_MAX_PIXELS } from '../media/document/pdf-page-images.ts';
import { lastPageIn, NoTextLayerError } from '../media/document/read-pdf.ts';
import { estimateTextTokens } from './token-estimate.ts';
import type { IncomingDocument, IncomingImage, ReplyEvent } from './types.ts';

type Notice = Extract<ReplyEvent, { type: 'notice' }>;

export interface DocumentInput {
  /** One labelled block per readable document, in the order they were attached. */
  blocks: string[];
  /** `file_skipped` and `file_truncated` notices, for the end of the answer. */
  notices: Notice[];
  /** Why each skipped file was skipped, one sentence naming it per file. */
  skipped: string[];
  /** The pages of scanned PDFs (no text layer) as pictures, for the vision model to read. */
  images: IncomingImage[];
}

/** Pages of a scanned PDF sent as pictures: the first ones, as a person would leaf through. */
export const MAX_SCANNED_PAGES = 5;

interface ScannedFile {
  block: string;
  images: IncomingImage[];
  notice?: string;
}

interface ReadFile {
  name: string;
  content: DocumentText;
}

/** Code fence language hints that differ from the file's extension. */
const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  py: 'python',
  pyi: 'python',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  rb: 'ruby',
  rs: 'rust',
  kt: 'kotlin',
  kts: 'kotlin',
  cs: 'csharp',
  fs: 'fsharp',
  sh: 'bash',
  zsh: 'bash',
  ps1: 'powershell',
  yml: 'yaml',
  md: 'markdown',
  htm: 'html',
  h: 'c',
  hpp: 'cpp',
  hh: 'cpp',
  cc: 'cpp',
  cxx: 'cpp',
  hs: 'haskell',
  ex: 'elixir',
  exs: 'elixir',
  pl: 'perl',
  pm: 'perl',
  jl: 'julia',
  txt: 'text',
  log: 'text',
  jsonl: 'json',
  ndjson: 'json',
  ipynb: 'json',
};

/**
 * Reads the attached documents (one after another) and labels each one for the user's turn, together within
 * `budgetTokens`: files that fit stay whole, and when they do not, the largest share the rest equally and
 * are cut at a line boundary with a visible marker and a `file_truncated` notice. A file without data, or
 * one that cannot be read, is skipped with a `file_skipped` notice naming it.
 */
export async function readDocuments(documents: readonly IncomingDocument[], budgetTokens: number): Promise<DocumentInput> {
  const results: (ReadFile | ScannedFile | { skipped: string })[] = [];
  for (const document of documents) results.push(await readOne(document, budgetTokens));
  const files = results.filter((r): r is ReadFile => 'content' in r);
  const scans = results.filter((r): r is ScannedFile => 'images' in r);
  const skipped = results.flatMap((r) => ('skipped' in r ? [r.skipped] : []));
  const notices: Notice[] = skipped.map((text) => ({ type: 'notice', code: 'file_skipped', text }));
  for (const scan of scans) if (scan.notice) notices.push({ type: 'notice', code: 'file_truncated', text: scan.notice });
  const allowances = shareBudget(
    files.map((file) => fullTokens(file, budgetTokens)),
    budgetTokens,
  );
  const blocks = files.map((file, i) => {
    const fitted = fitFile(file, allowances[i]!);
    if (fitted.notice) notices.push({ type: 'notice', code: 'file_truncated', text: fitted.notice });
    return fitted.block;
  });
  return { blocks: [...blocks, ...scans.map((scan) => scan.block)], notices, skipped, images: scans.flatMap((scan) => scan.images) };
}

/** One document, read or skipped; one at a time, so that a message of many large files never holds them all decoded. */
async function readOne(document: IncomingDocument, budgetTokens: number): Promise<ReadFile | ScannedFile | { skipped: string }> {
  if (!document.data) return { skipped: `I skipped "${document.name}": besides images and audio, I can only read ${READABLE_DOCUMENTS}.` };
  try {
    return { name: document.name, content: await readDocument(document.name, document.data, mostCharsThatFit(budgetTokens)) };
  } catch (error) {
    if (error instanceof NoTextLayerError) return (await scannedPages(document.name, document.data)) ?? { skipped: error.message };
    if (error instanceof MediaError) return { skipped: error.message };
    throw error;
  }
}

/**
 * A scanned PDF as its first pages' pictures and a line saying so; skipped when its pictures are too large to read,
 * undefined when it has no pictures either.
 */
async function scannedPages(name: string, bytes: Uint8Array): Promise<ScannedFile | { skipped: string } | undefined> {
  const { pages, images, oversized } = await pdfPageImages(bytes, MAX_SCANNED_PAGES).catch(() => ({ pages: 0, images: [], oversized: 0 }));
  if (images.length === 0 && oversized > 0) {
    return { skipped: `"${name}" is a scan whose page pictures are too large to read (over ${SCANNED_PAGE_MAX_PIXELS / 1e6} megapixels).` };
  }
  if (images.length === 0) return undefined;
  const label = labelName(name);
  const shown = images.map((image) => image.page);
  const which = shown.length === 1 ? `page ${shown[0]}` : `pages ${shown.join(', ')}`;
  return {
    block: `[file "${label}", ${pages} page${pages === 1 ? '' : 's'}, scanned without a text layer: ${which} follow${shown.length === 1 ? 's' : ''} as images]`,
    images: images.map((image) => ({ name: `${name}, page ${image.page}`, mime: 'image/jpeg', data: image.jpeg })),
    ...(pages > MAX_SCANNED_PAGES && { notice: `"${name}" is a scan of ${pages} pages, so I looked only at the first ${MAX_SCANNED_PAGES}.` }),
  };
}

/** No character costs less than a quarter of a token, so no more than this much text of a file can be sent. */
function mostCharsThatFit(budgetTokens: number): number {
  return budgetTokens * 4;
}

/**
 * Each file's allowance: everything when all fit; else the smaller files whole and an equal share of what is
 * left for each larger one.
 */
function shareBudget(costs: readonly number[], budget: number): number[] {
  const allowances = [...costs];
  if (costs.reduce((sum, cost) => sum + cost, 0) <= budget) return allowances;
  const order = costs.map((_, i) => i).sort((a, b) => costs[a]! - costs[b]!);
  let left = budget;
  order.forEach((index, position) => {
    const share = Math.floor(left / (order.length - position));
    allowances[index] = Math.min(costs[index]!, share);
    left -= allowances[index]!;
  });
  return allowances;
}

/** A file's cost when sent whole; one that could never fit is not estimated, only known to be too big. */
function fullTokens(file: ReadFile, budgetTokens: number): number {
  if (file.content.text.length > mostCharsThatFit(budgetTokens)) return budgetTokens + 1;
  return estimateTextTokens(block(file, file.content.text));
}

function fitFile(file: ReadFile, allowance: number): { block: string; notice?: string } {
  const { text, pages = 1 } = file.content;
  if (text.length <= mostCharsThatFit(allowance)) {
    const whole = block(file, text);
    if (estimateTextTokens(whole) <= allowance) return { block: whole };
  }

  const totalLines = countLines(text);
  const room = allowance - estimateTextTokens(`${block(file, '')}\n${markerLine(file, totalLines, totalLines, true)}`);
  const { kept, partial } = keepLines(text, room);
  const keptLines = kept === '' ? 0 : kept.split('\n').length;
  if (pages > 1) {
    const lastPage = lastPageIn(kept);
    return {
      block: `${block(file, kept)}\n[… "${labelName(file.name)}" was cut here, in page ${lastPage} of ${pages}: the rest did not fit]`,
      notice: `"${file.name}" is long, so I read only about its first ${lastPage} of ${pages} pages.`,
    };
  }
  return {
    block: `${block(file, kept)}\n${markerLine(file, keptLines, totalLines, partial)}`,
    notice: `"${file.name}" is long, so I read only ${portion(kept.length / text.length)} of it.`,
  };
}

/** `[file "NAME"]` (a PDF's with its page count), then the text fenced as code. */
function block(file: ReadFile, text: string): string {
  const name = labelName(file.name);
  const { pages } = file.content;
  const label = pages === undefined ? `[file "${name}"]` : `[file "${name}", ${pages} page${pages === 1 ? '' : 's'}]`;
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  const language = pages === undefined ? languageOf(file.name) : '';
  return `${label}\n${fence}${language}\n${text}${text.endsWith('\n') || text === '' ? '' : '\n'}${fence}`;
}

function markerLine(file: ReadFile, keptLines: number, totalLines: number, partial: boolean): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const where = partial ? `within line ${count(Math.max(1, keptLines))}` : `after line ${count(keptLines)}`;
  return `[… "${labelName(file.name)}" was cut here, ${where} of ${count(totalLines)}: the rest did not fit]`;
}

/**
 * The longest start of `text` that ends at a line end and costs at most `room` tokens; when even the first
 * line costs more, the longest start of that line (`partial`).
 */
function keepLines(text: string, room: number): { kept: string; partial: boolean } {
  const window = text.slice(0, Math.max(0, Math.floor(mostCharsThatFit(room))));
  const ends: number[] = [];
  for (let at = window.indexOf('\n'); at >= 0; at = window.indexOf('\n', at + 1)) ends.push(at);
  let low = 0;
  let high = ends.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (estimateTextTokens(window.slice(0, ends[middle - 1])) <= room) low = middle;
    else high = middle - 1;
  }
  if (low > 0) return { kept: window.slice(0, ends[low - 1]), partial: false };
  return { kept: longestStart(window.slice(0, ends[0] ?? window.length), room), partial: true };
}

/** The longest start of `line` within `room` tokens, never splitting a character. */
function longestStart(line: string, room: number): string {
  let low = 0;
  let high = line.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (estimateTextTokens(line.slice(0, middle)) <= room) low = middle;
    else high = middle - 1;
  }
  return /[\uDC00-\uDFFF]/.test(line[low] ?? '') ? line.slice(0, low - 1) : line.slice(0, low);
}

function countLines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines += 1;
  return text.endsWith('\n') || text === '' ? lines : lines + 1;
}

function portion(share: number): string {
  return share < 0.01 ? 'the start (less than 1%)' : `about the first ${Math.floor(share * 100)}%`;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

function languageOf(name: string): string {
  const extension = /\.([a-z0-9+#_-]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (!extension) return '';
  return LANGUAGE_BY_EXTENSION[extension] ?? extension;
}

/** A file name safe inside `[file "…"]`. */
function labelName(name: string): string {
  return name.replace(/[\r\n"]+/g, "'");
}
