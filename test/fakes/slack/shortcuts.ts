import { issueTrigger } from './interactivity.ts';
import type { ResponseUrls } from './response-urls.ts';
import type { Json, Workspace } from './state.ts';

export interface MessageShortcutInput {
  /** The shortcut's callback_id, as the app's manifest declares it. */
  callbackId: string;
  /** The message the shortcut was picked on. */
  messageTs: string;
  channel?: string;
  user?: string;
}

export interface MessageShortcutDeps {
  ws: Workspace;
  verificationToken: string;
  responseUrls: ResponseUrls;
  defaults: { userId: string; channelId: string };
}

/**
 * The `message_action` interaction Slack sends when a user picks one of the app's message shortcuts from a
 * message's "More actions" menu: the whole message as the user saw it, the channel, who picked it, a trigger_id for a
 * modal and a response_url for the user's channel. The same over HTTP (`payload=`) and Socket Mode (`interactive`).
 */
export function messageShortcutPayload(deps: MessageShortcutDeps, input: MessageShortcutInput): Json {
  const { ws } = deps;
  const channel = input.channel ?? deps.defaults.channelId;
  const user = input.user ?? deps.defaults.userId;
  const message = ws.findMessage(channel, input.messageTs);
  if (!message) throw new Error(`fake slack: no message ${input.messageTs} in ${channel}`);
  const person = ws.users.get(user);
  if (!person) throw new Error(`fake slack: no user ${user}`);
  return {
    type: 'message_action',
    token: deps.verificationToken,
    action_ts: ws.clock.next(),
    team: { id: ws.identity.teamId, domain: ws.identity.teamDomain },
    user: { id: user, name: person.name, username: person.name, team_id: ws.identity.teamId },
    channel: { id: channel, name: ws.channels.get(channel)?.name ?? 'directmessage' },
    is_enterprise_install: false,
    enterprise: null,
    callback_id: input.callbackId,
    trigger_id: issueTrigger(ws),
    response_url: deps.responseUrls.mint('actions', channel, user),
    message_ts: message.ts,
    message: ws.render(message),
  };
}
