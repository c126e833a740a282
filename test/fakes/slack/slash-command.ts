import { issueTrigger } from './interactivity.ts';
import type { ResponseUrls } from './response-urls.ts';
import type { Workspace } from './state.ts';

export interface SlashCommandInput {
  command: string;
  text?: string;
  user?: string;
  channel?: string;
}

export interface SlashCommandDeps {
  ws: Workspace;
  verificationToken: string;
  responseUrls: ResponseUrls;
  defaults: { userId: string; channelId: string };
}

/** The fields Slack sends for a slash command, the same over HTTP (form-encoded) and Socket Mode (payload). */
export function slashCommandFields(deps: SlashCommandDeps, input: SlashCommandInput): Record<string, string> {
  const { ws, defaults, verificationToken, responseUrls } = deps;
  const channelId = input.channel ?? defaults.channelId;
  const userId = input.user ?? defaults.userId;
  const channel = ws.channels.get(channelId);
  return {
    token: verificationToken,
    team_id: ws.identity.teamId,
    team_domain: ws.identity.teamDomain,
    channel_id: channelId,
    channel_name: channel?.is_im ? 'directmessage' : (channel?.name ?? 'privategroup'),
    user_id: userId,
    user_name: ws.users.get(userId)?.name ?? 'user',
    command: input.command,
    text: input.text ?? '',
    api_app_id: ws.identity.appId,
    is_enterprise_install: 'false',
    response_url: responseUrls.mint('commands', channelId, userId),
    trigger_id: issueTrigger(ws),
  };
}
