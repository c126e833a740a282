import { loadConfig, type Config, type Env } from '../../src/config/config.ts';
import { collectReply, type CollectedReply } from '../helpers/collect-reply.ts';
import type { ConversationEngine } from '../../src/conversation/engine.ts';
import type { HandleOptions, IncomingMessage } from '../../src/conversation/types.ts';

/** A validated config from test variables only (no .env file, no service unless given). */
export function testConfig(env: Env = {}): Config {
  return loadConfig({ TZ: 'Europe/Berlin', ...env }, { envFile: '/nonexistent/.env', requireService: false });
}

export interface MessageOptions extends Partial<Omit<IncomingMessage, 'author'>> {
  author?: string;
  authorId?: string;
}

let nextId = 1;

/** Plays a chat platform: builds messages as an adapter would and collects the engine's replies. */
export class FakeAdapter {
  readonly engine: ConversationEngine;
  readonly defaults: Partial<IncomingMessage>;
  /** Prefix of the user ids made from author names (`id-alice`); unique per run where a store is shared. */
  readonly userIdPrefix: string;

  constructor(engine: ConversationEngine, defaults: Partial<IncomingMessage> = {}, userIdPrefix = 'id-') {
    this.engine = engine;
    this.defaults = { platform: 'test', workspaceId: 'guild-1', channelId: 'channel-1', isDirect: false, ...defaults };
    this.userIdPrefix = userIdPrefix;
  }

  message(text: string, options: MessageOptions = {}): IncomingMessage {
    const { author = 'Alice', authorId, ...rest } = options;
    return {
      platform: 'test',
      channelId: 'channel-1',
      isDirect: false,
      ...this.defaults,
      messageId: `m${nextId++}`,
      author: { id: authorId ?? `${this.userIdPrefix}${author.toLowerCase()}`, displayName: author },
      text,
      ...rest,
    };
  }

  /** Sends a message and waits for the whole reply. */
  send(text: string, options: MessageOptions = {}, handleOptions: HandleOptions = {}): Promise<CollectedReply> {
    return collectReply(this.engine.handle(this.message(text, options), handleOptions));
  }
}
