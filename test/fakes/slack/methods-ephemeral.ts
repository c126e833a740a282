import { parseMessageContent } from './blocks.ts';
import { postableChannel, resolveThread } from './methods-chat.ts';
import { failWithMessages, fail, missingArgument, stringArg } from './method-types.ts';
import type { MethodCall, MethodSpec } from './method-types.ts';
import type { Json } from './state.ts';

/**
 * chat.postEphemeral: a message only `user` sees, in a channel (or a thread of it) both the bot and the user are
 * in. Slack keeps no copy: it is not in the history and cannot be updated or deleted, so the fake only answers
 * `message_ts` (the call log holds what was sent).
 */
function postEphemeral({ core, args }: MethodCall): Json {
  const user = stringArg(args, 'user');
  if (!user) return missingArgument('user');
  const channelOutcome = postableChannel(core, stringArg(args, 'channel'), true);
  if ('failure' in channelOutcome) return channelOutcome.failure;
  const channel = channelOutcome.value;
  if (!core.ws.users.has(user)) return fail('user_not_found');
  if (channel.is_im && channel.user !== user) return fail('user_not_in_channel');
  const content = parseMessageContent(args);
  if ('error' in content) return failWithMessages(content.error, content.messages);
  const thread = resolveThread(core, channel.id, stringArg(args, 'thread_ts'));
  if ('failure' in thread) return thread.failure;
  return { ok: true, message_ts: core.ws.clock.next() };
}

export const ephemeralMethods: Record<string, MethodSpec> = {
  'chat.postEphemeral': { token: 'bot', scope: 'chat:write', channelArg: 'channel', handler: postEphemeral },
};
