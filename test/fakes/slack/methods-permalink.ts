import { fail, missingArgument, stringArg } from './method-types.ts';
import type { MethodCall, MethodSpec } from './method-types.ts';
import type { Json } from './state.ts';

/**
 * chat.getPermalink: https://{domain}.slack.com/archives/{channel}/p{ts without the dot}, and for a reply in a
 * thread `?thread_ts={parent}&cid={channel}`. Any message of a conversation the bot can see; needs no scope.
 */
function getPermalink({ core, args }: MethodCall): Json {
  const id = stringArg(args, 'channel');
  if (!id) return missingArgument('channel');
  const ts = stringArg(args, 'message_ts');
  if (!ts) return missingArgument('message_ts');
  const channel = core.ws.channels.get(id);
  if (!channel || (!channel.is_member && channel.is_private)) return fail('channel_not_found');
  const message = core.ws.findMessage(id, ts);
  if (!message) return fail('message_not_found');
  const reply = message.thread_ts !== undefined && message.thread_ts !== message.ts;
  const permalink = `https://${core.ws.identity.teamDomain}.slack.com/archives/${id}/p${ts.replace('.', '')}${reply ? `?thread_ts=${message.thread_ts}&cid=${id}` : ''}`;
  return { ok: true, channel: id, permalink };
}

export const permalinkMethods: Record<string, MethodSpec> = {
  'chat.getPermalink': { token: 'bot', handler: getPermalink },
};
