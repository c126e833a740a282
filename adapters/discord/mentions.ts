import type { MessageMentionOptions } from 'discord.js';

/** Sent with every message: model output never pings anyone, not even the user it replies to. */
export const NO_MENTIONS: MessageMentionOptions = { parse: [], repliedUser: false };
