/**
 * response_url webhooks handed out with slash commands and interactions. Like Slack's, each takes JSON, may be
 * used five times within thirty minutes, posts `in_channel` responses into the conversation as the app and
 * keeps `ephemeral` ones (the default) visible to the invoking user only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes, randomInt } from 'node:crypto';
import { parseMessageContent } from './blocks.ts';
import { readBody, sendText } from './http-util.ts';
import type { Json, StoredMessage, Workspace } from './state.ts';

const MAX_USES = 5;
const LIFETIME_MS = 30 * 60_000;

export interface ResponseUrlPost {
  url: string;
  channel: string;
  user: string;
  body: Json;
  status: number;
  /** The message an in_channel response created, or the original it replaced. */
  ts?: string;
  at: number;
}

interface Issued {
  channel: string;
  user: string;
  /** The message an interaction came from: replace_original/delete_original act on it. */
  messageTs?: string;
  uses: number;
  createdAt: number;
}

export class ResponseUrls {
  readonly posts: ResponseUrlPost[] = [];
  readonly #ws: Workspace;
  readonly #baseUrl: string;
  readonly #issued = new Map<string, Issued>();

  constructor(ws: Workspace, baseUrl: string) {
    this.#ws = ws;
    this.#baseUrl = baseUrl;
  }

  /** A fresh response_url; `kind` is the path Slack uses ("commands" for slash commands, "actions" otherwise). */
  mint(kind: 'commands' | 'actions', channel: string, user: string, messageTs?: string): string {
    const path = `/${kind}/${this.#ws.identity.teamId}/${randomInt(1e12, 9e12)}/${randomBytes(12).toString('base64url')}`;
    this.#issued.set(path, { channel, user, uses: 0, createdAt: Date.now(), ...(messageTs ? { messageTs } : {}) });
    return `${this.#baseUrl}${path}`;
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const issued = this.#issued.get(path);
    const raw = (await readBody(req)).toString('utf8');
    let body: Json = {};
    try {
      body = JSON.parse(raw) as Json;
    } catch {
      body = { raw };
    }
    const record = (status: number, ts?: string): void => {
      this.posts.push({
        url: `${this.#baseUrl}${path}`,
        channel: issued?.channel ?? '',
        user: issued?.user ?? '',
        body,
        status,
        ...(ts ? { ts } : {}),
        at: Date.now(),
      });
    };
    if (req.method !== 'POST' || !issued) {
      record(404);
      return sendText(res, 404, 'invalid_url');
    }
    if (Date.now() - issued.createdAt > LIFETIME_MS) {
      record(404);
      return sendText(res, 404, 'expired_url');
    }
    if (issued.uses >= MAX_USES) {
      record(404);
      return sendText(res, 404, 'used_url');
    }
    issued.uses += 1;
    const original = issued.messageTs ? this.#ws.findMessage(issued.channel, issued.messageTs) : undefined;
    if (body.delete_original === true || body.delete_original === 'true') {
      if (original) this.#ws.removeMessage(original.channel, original.ts);
      record(200);
      return sendText(res, 200, 'ok');
    }
    const content = parseMessageContent(body);
    if ('error' in content) {
      record(400);
      return sendText(res, 400, content.error);
    }
    let ts: string | undefined;
    if ((body.replace_original === true || body.replace_original === 'true') && original) {
      original.text = content.text;
      original.blocks = content.blocks && content.blocks.length > 0 ? content.blocks : undefined;
      original.versions.push({ at: Date.now(), text: original.text, ...(original.blocks ? { blocks: original.blocks } : {}) });
      ts = original.ts;
    } else if (body.response_type === 'in_channel') {
      const message: StoredMessage = {
        channel: issued.channel,
        ts: this.#ws.clock.next(),
        user: this.#ws.identity.botUserId,
        bot_id: this.#ws.identity.botId,
        app_id: this.#ws.identity.appId,
        team: this.#ws.identity.teamId,
        text: content.text,
        ...(content.blocks && content.blocks.length > 0 ? { blocks: content.blocks } : {}),
        ...(typeof body.thread_ts === 'string' ? { thread_ts: body.thread_ts } : {}),
        fileIds: [],
        reactions: [],
        versions: [{ at: Date.now(), text: content.text }],
        extra: {},
      };
      ts = this.#ws.insertMessage(message).ts;
    }
    record(200, ts);
    sendText(res, 200, 'ok');
  }
}
