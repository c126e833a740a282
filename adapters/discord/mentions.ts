import type { APIAllowedMentions, MessageMentionOptions } from 'discord.js';

/** Sent with every message: model output never pings anyone, not even the user it replies to. */
export const NO_MENTIONS: MessageMentionOptions = { parse: [], repliedUser: false };

/** NO_MENTIONS as Discord's API takes it, for bodies sent to the REST routes directly. */
export const NO_MENTIONS_BODY: APIAllowedMentions = { parse: [], replied_user: false };
