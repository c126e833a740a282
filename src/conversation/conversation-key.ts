import type { ConversationKey, IncomingMessage, SettingsScope } from './types.ts';

export function conversationKeyOf(message: IncomingMessage): ConversationKey {
  return {
    platform: message.platform,
    ...(message.workspaceId !== undefined && { workspaceId: message.workspaceId }),
    channelId: message.channelId,
    ...(message.threadId !== undefined && { threadId: message.threadId }),
  };
}

function part(value: string | undefined): string {
  return value === undefined ? '-' : encodeURIComponent(value);
}

/** A stable string for store keys; ids are escaped so no two keys can collide. */
export function conversationId(key: ConversationKey): string {
  return [key.platform, key.workspaceId, key.channelId, key.threadId].map(part).join(':');
}

export function settingsId(scope: SettingsScope): string {
  return [scope.platform, scope.workspaceId, scope.channelId].map(part).join(':');
}
