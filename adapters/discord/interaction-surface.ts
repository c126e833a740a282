import type { Logger } from '../../src/log/logger.ts';
import { DiscordSurface, type EditBody, type MessageBody } from './discord-surface.ts';
import type { InteractionReplies } from './interaction-replies.ts';
import { ANY_ID, routeKey, type RouteRateLimits } from './route-rate-limits.ts';

/** A reply to a slash command: the interaction's response and followups, edited through its webhook. */
export class InteractionSurface extends DiscordSurface {
  readonly uploadLimitBytes: number;
  readonly #replies: InteractionReplies;

  constructor(options: { replies: InteractionReplies; rateLimits: RouteRateLimits; logger: Logger; uploadLimitBytes: number }) {
    const { applicationId, token } = options.replies.interaction;
    super(
      {
        rateLimits: options.rateLimits,
        createKey: routeKey('POST', `/webhooks/${applicationId}/${token}`),
        editKey: routeKey('PATCH', `/webhooks/${applicationId}/${token}/messages/${ANY_ID}`),
      },
      options.logger,
    );
    this.#replies = options.replies;
    this.uploadLimitBytes = options.uploadLimitBytes;
  }

  protected send(body: MessageBody): Promise<string> {
    return this.#replies.post(body);
  }

  protected edit(handle: string, body: EditBody): Promise<void> {
    return this.#replies.edit(handle, body);
  }
}
