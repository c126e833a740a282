/**
 * Slack's private file hosting and external upload endpoint.
 * url_private / url_private_download serve bytes only to a request carrying `Authorization: Bearer <token>`;
 * anything else is redirected to the workspace sign-in page, so a client that forgets the token reads HTML.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { bearerToken, readBody, sendText } from './http-util.ts';
import { slackId } from './ids.ts';
import type { Json, StoredFile, Workspace } from './state.ts';

export interface FileFetch {
  fileId: string;
  path: string;
  download: boolean;
  /** Whether the request carried the bot token (and so got the bytes). */
  authorized: boolean;
  tokenPresented: boolean;
  status: number;
  at: number;
  /** Once the response is over: `complete` when every byte went out, `client-closed` when the client hung up first. */
  ended?: 'complete' | 'client-closed';
}

/** A download held after its first bytes, as over a stalled network, until released. */
export interface HeldTransfer {
  release(): void;
}

export interface UploadPost {
  fileId: string;
  bytes: number;
  contentType: string;
  at: number;
}

export interface NewFile {
  name: string;
  /** `snippet` for a snippet written in Slack (its filetype is the snippet's language); `hosted` when omitted. */
  mode?: 'hosted' | 'snippet';
  bytes: Buffer | Uint8Array;
  mimetype?: string;
  filetype?: string;
  title?: string;
  /** The uploader; defaults to the workspace's bot for bot uploads and must be given for user files. */
  user: string;
  /** e.g. 'slack_audio' for a voice clip recorded in Slack. */
  subtype?: string;
  /** Any further fields of the file object (duration_ms, transcription, thumb_360, original_w …). */
  extra?: Json;
}

const TYPES: Record<string, { filetype: string; pretty: string; mimetype: string }> = {
  png: { filetype: 'png', pretty: 'PNG', mimetype: 'image/png' },
  jpg: { filetype: 'jpg', pretty: 'JPEG', mimetype: 'image/jpeg' },
  jpeg: { filetype: 'jpg', pretty: 'JPEG', mimetype: 'image/jpeg' },
  gif: { filetype: 'gif', pretty: 'GIF', mimetype: 'image/gif' },
  webp: { filetype: 'webp', pretty: 'WebP', mimetype: 'image/webp' },
  heic: { filetype: 'heic', pretty: 'HEIC', mimetype: 'image/heic' },
  m4a: { filetype: 'm4a', pretty: 'MPEG 4 Audio', mimetype: 'audio/mp4' },
  mp3: { filetype: 'mp3', pretty: 'MP3', mimetype: 'audio/mpeg' },
  ogg: { filetype: 'ogg', pretty: 'Ogg Vorbis', mimetype: 'audio/ogg' },
  wav: { filetype: 'wav', pretty: 'WAV', mimetype: 'audio/wav' },
  webm: { filetype: 'webm', pretty: 'WebM', mimetype: 'video/webm' },
  mp4: { filetype: 'mp4', pretty: 'MPEG 4 Video', mimetype: 'video/mp4' },
  pdf: { filetype: 'pdf', pretty: 'PDF', mimetype: 'application/pdf' },
  txt: { filetype: 'text', pretty: 'Plain Text', mimetype: 'text/plain' },
  md: { filetype: 'markdown', pretty: 'Markdown (raw)', mimetype: 'text/plain' },
  json: { filetype: 'json', pretty: 'JSON', mimetype: 'application/json' },
  csv: { filetype: 'csv', pretty: 'CSV', mimetype: 'text/csv' },
  html: { filetype: 'html', pretty: 'HTML', mimetype: 'text/html' },
  // Slack names code by language and serves most of it as plain text.
  py: { filetype: 'python', pretty: 'Python', mimetype: 'text/plain' },
  zip: { filetype: 'zip', pretty: 'Zip', mimetype: 'application/zip' },
  docx: { filetype: 'docx', pretty: 'Word Document', mimetype: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
  mov: { filetype: 'mov', pretty: 'QuickTime Movie', mimetype: 'video/quicktime' },
};

/** Pretty types of the languages a snippet can be written in (Slack's snippet menu). */
const SNIPPET_TYPES: Record<string, string> = {
  text: 'Plain Text',
  python: 'Python',
  javascript: 'JavaScript',
  typescript: 'TypeScript',
  shell: 'Shell',
  sql: 'SQL',
  json: 'JSON',
  markdown: 'Markdown (raw)',
};

/** How many lines of a text file or snippet Slack puts in the file object's preview. */
const PREVIEW_LINES = 5;

function typeOf(input: NewFile): { filetype: string; pretty: string; mimetype: string } {
  if (input.mode === 'snippet') {
    const filetype = input.filetype ?? 'text';
    return { filetype, pretty: SNIPPET_TYPES[filetype] ?? filetype, mimetype: 'text/plain' };
  }
  const ext = /\.([a-z0-9]+)$/i.exec(input.name)?.[1]?.toLowerCase() ?? '';
  return TYPES[ext] ?? { filetype: 'binary', pretty: 'Binary', mimetype: 'application/octet-stream' };
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The first lines of a text file or snippet, as Slack previews them in the file object. */
function textPreview(bytes: Buffer): Json {
  const lines = bytes.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return {
    preview: escapeHtml(lines.slice(0, PREVIEW_LINES).join('\n')),
    lines: lines.length,
    lines_more: Math.max(0, lines.length - PREVIEW_LINES),
    preview_is_truncated: lines.length > PREVIEW_LINES,
  };
}

const LOGIN_PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Sign in | Slack</title></head>' +
  '<body><h1>Sign in to your workspace</h1><form action="/signin" method="post"><input name="email"></form></body></html>';

export class FileHost {
  readonly fetches: FileFetch[] = [];
  readonly uploads: UploadPost[] = [];
  readonly #ws: Workspace;
  readonly #baseUrl: string;
  readonly #acceptedTokens: () => string[];
  readonly #pendingUploads = new Map<string, string>();
  readonly #holds = new Map<string, { afterBytes: number; released: Promise<void> }>();

  constructor(ws: Workspace, baseUrl: string, acceptedTokens: () => string[]) {
    this.#ws = ws;
    this.#baseUrl = baseUrl;
    this.#acceptedTokens = acceptedTokens;
  }

  /** Stores a file and returns it with its Slack file object. */
  create(
    input: NewFile,
    { uploaded = true, completed = true, declaredLength }: Partial<Pick<StoredFile, 'uploaded' | 'completed' | 'declaredLength'>> = {},
  ): StoredFile {
    const id = slackId('F');
    const now = Math.floor(Date.now() / 1000);
    const type = typeOf(input);
    const bytes = Buffer.from(input.bytes);
    const base = `${this.#baseUrl}/files-pri/${this.#ws.identity.teamId}-${id}`;
    const mimetype = input.mimetype ?? type.mimetype;
    const snippet = input.mode === 'snippet';
    const permalink = `https://${this.#ws.identity.teamDomain}.slack.com/files/${input.user}/${id}/${encodeURIComponent(input.name)}`;
    const file: StoredFile['file'] = {
      id,
      created: now,
      timestamp: now,
      name: input.name,
      title: input.title ?? input.name,
      mimetype,
      filetype: input.filetype ?? type.filetype,
      pretty_type: type.pretty,
      user: input.user,
      user_team: this.#ws.identity.teamId,
      editable: snippet,
      size: bytes.length,
      mode: snippet ? 'snippet' : 'hosted',
      is_external: false,
      external_type: '',
      is_public: false,
      public_url_shared: false,
      display_as_bot: false,
      username: '',
      url_private: `${base}/${encodeURIComponent(input.name)}`,
      url_private_download: `${base}/download/${encodeURIComponent(input.name)}`,
      ...(mimetype.startsWith('audio/') ? { media_display_type: 'audio' } : {}),
      ...(mimetype.startsWith('video/') ? { media_display_type: 'video' } : {}),
      permalink,
      permalink_public: `https://slack-files.com/${this.#ws.identity.teamId}-${id}-${randomBytes(5).toString('hex')}`,
      ...(snippet ? { edit_link: `${permalink}/edit` } : {}),
      ...(snippet || mimetype.startsWith('text/') ? textPreview(bytes) : {}),
      has_rich_preview: false,
      file_access: 'visible',
      ...(input.subtype ? { subtype: input.subtype } : {}),
      ...input.extra,
    };
    const stored: StoredFile = { file, bytes, uploaded, completed, ...(declaredLength !== undefined ? { declaredLength } : {}) };
    this.#ws.files.set(id, stored);
    return stored;
  }

  /** Registers a file awaiting its bytes and returns the single-use URL to POST them to. */
  uploadUrlFor(fileId: string): string {
    const secret = randomBytes(16).toString('hex');
    this.#pendingUploads.set(secret, fileId);
    return `${this.#baseUrl}/upload/v1/${secret}`;
  }

  async handleUpload(req: IncomingMessage, res: ServerResponse, secret: string): Promise<void> {
    const fileId = this.#pendingUploads.get(secret);
    const stored = fileId ? this.#ws.files.get(fileId) : undefined;
    if (req.method !== 'POST' || !fileId || !stored) {
      sendText(res, 404, 'upload not found');
      return;
    }
    const body = await readBody(req);
    const contentType = req.headers['content-type'] ?? '';
    let bytes = body;
    if (contentType.toLowerCase().startsWith('multipart/form-data')) {
      const form = await new Request('http://fake.invalid/', {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: new Uint8Array(body),
      })
        .formData()
        .catch(() => undefined);
      const part = form ? [...form.values()].find((v) => typeof v !== 'string') : undefined;
      if (part === undefined || typeof part === 'string') {
        sendText(res, 400, 'no file in form');
        return;
      }
      bytes = Buffer.from(await (part as unknown as Blob).arrayBuffer());
    }
    this.#pendingUploads.delete(secret);
    stored.bytes = bytes;
    stored.uploaded = true;
    stored.file.size = bytes.length;
    if ('preview' in stored.file) Object.assign(stored.file, textPreview(bytes));
    this.uploads.push({ fileId, bytes: bytes.length, contentType, at: Date.now() });
    sendText(res, 200, `OK - ${bytes.length}`);
  }

  /** Serves /files-pri/T-F/name and /files-pri/T-F/download/name. */
  serve(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const match = /^\/files-pri\/([A-Z0-9]+)-([A-Z0-9]+)\/(download\/)?[^/]+$/.exec(url.pathname);
    const stored = match && match[1] === this.#ws.identity.teamId ? this.#ws.files.get(match[2] ?? '') : undefined;
    const token = bearerToken(req);
    const authorized = token !== undefined && this.#acceptedTokens().includes(token);
    const record = (status: number): void => {
      this.fetches.push({
        fileId: match?.[2] ?? '',
        path: url.pathname,
        download: match?.[3] !== undefined,
        authorized,
        tokenPresented: token !== undefined,
        status,
        at: Date.now(),
      });
    };
    if (!authorized) {
      record(302);
      res.writeHead(302, { location: `${this.#baseUrl}/?redir=${encodeURIComponent(url.pathname)}` });
      res.end();
      return;
    }
    if (!stored?.uploaded) {
      record(404);
      sendText(res, 404, '<!DOCTYPE html><html><body>File not found</body></html>', 'text/html; charset=utf-8');
      return;
    }
    record(200);
    const fetch = this.fetches.at(-1)!;
    res.on('close', () => (fetch.ended = res.writableFinished ? 'complete' : 'client-closed'));
    const headers: Record<string, string> = {
      'content-type': stored.file.mimetype,
      'content-length': String(stored.bytes.length),
    };
    if (match?.[3]) headers['content-disposition'] = `attachment; filename="${stored.file.name}"`;
    res.writeHead(200, headers);
    const held = this.#holds.get(match![2]!);
    if (req.method === 'HEAD' || !held) {
      res.end(req.method === 'HEAD' ? undefined : stored.bytes);
      return;
    }
    res.write(stored.bytes.subarray(0, held.afterBytes));
    void held.released.then(() => {
      if (!res.destroyed) res.end(stored.bytes.subarray(held.afterBytes));
    });
  }

  /** Downloads of the file send `afterBytes` bytes, then nothing more until `release()`. */
  hold(fileId: string, afterBytes: number): HeldTransfer {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.#holds.set(fileId, { afterBytes, released });
    return { release };
  }

  /** The sign-in page an unauthenticated file request lands on. */
  serveLogin(res: ServerResponse): void {
    sendText(res, 200, LOGIN_PAGE, 'text/html; charset=utf-8');
  }
}
