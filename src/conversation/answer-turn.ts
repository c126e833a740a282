import type { Config } from '../config/config.ts';
import type { Logger } from '../log/logger.ts';
import type { ChatMessage } from '../service/types.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { ToolContext } from '../tools/types.ts';
import { buildUserTurn, type UserTurn, type UserTurnDeps } from './build-user-turn.ts';
import type { Exchange } from './context-budget.ts';
import type { ConversationHistory } from './history.ts';
import { UNKNOWN_IMAGE_TOKENS } from './media-input.ts';
import { runReplyLoop, type ChatFunction } from './reply-loop.ts';
import type { ResolvedSettings } from './settings.ts';
import { buildSystemPrompt } from './system-prompt.ts';
import { estimateMessageTokens } from './token-estimate.ts';
import type { TurnContext } from './turn-context.ts';
import { addUsage } from './usage-meter.ts';

export interface AnswerDeps extends Omit<UserTurnDeps, 'documentTokens'> {
  config: Config;
  logger: Logger;
  now: () => Date;
  chat: ChatFunction;
  tools: ToolRegistry;
  history: ConversationHistory;
}

/** What an admitted turn holds: the settings in force. */
export interface TurnAdmission {
  settings: ResolvedSettings;
}

/**
 * Answers an admitted turn, holding its conversation's lock (an approval waited on included), and adds the exchange to
 * the history it was given, which no other turn can have changed meanwhile.
 */
export async function answerTurn(turn: TurnContext, admission: TurnAdmission, history: readonly Exchange[], deps: AnswerDeps): Promise<void> {
  const user = await buildUserTurn(turn, { ...deps, documentTokens: Math.floor(deps.config.conversation.contextTokens / 2) });
  const messages = user.kind === 'transcript' ? user.messages : await askModel(turn, user, admission, history, deps);
  const tokens = messages.reduce((sum, m) => sum + estimateMessageTokens(m, () => UNKNOWN_IMAGE_TOKENS), 0);
  await deps.history.save(turn.key, [...history, { messages, tokens, at: deps.now().getTime(), messageId: turn.message.messageId }]);
}

/** Answers a question through the reply loop; returns the exchange to store (the user's part as `stored`). */
async function askModel(
  turn: TurnContext,
  user: UserTurn,
  { settings }: TurnAdmission,
  history: readonly Exchange[],
  deps: AnswerDeps,
): Promise<ChatMessage[]> {
  const { config, now } = deps;
  const { message, options, signal } = turn;
  const ask = options.approve;
  const toolContext: ToolContext = {
    signal,
    timezone: config.timezone,
    now,
    platform: message.platform,
    ...(message.workspaceId !== undefined && { workspaceId: message.workspaceId }),
    channelId: message.channelId,
    userId: message.author.id,
    userName: message.author.displayName,
    ...(options.workspace && { workspace: options.workspace }),
    logger: deps.logger,
    mcpServersOff: settings.mcpOff,
    ...(ask && { approve: (request) => ask(request, signal) }),
    chargeUsage: (usage) => addUsage(turn.usage, usage),
  };
  // The vision model answers images without function tools. With API_FORMAT=messages, function tools ride only on
  // requests that need chat completions anyway (web search on), so a plain text turn stays on the chosen endpoint.
  const offerTools = !user.hasImages && (config.api.format === 'chat' || settings.webSearch !== 'off');
  const tools = offerTools ? deps.tools.definitions(toolContext) : [];
  const system = buildSystemPrompt({
    now: now(),
    timezone: config.timezone,
    platform: message.platform,
    ...(settings.persona && { persona: settings.persona }),
    shared: !message.isDirect,
    tools: tools.length > 0,
    ...(options.spoken && { spoken: true }),
  });
  const result = await runReplyLoop({
    chat: deps.chat,
    system,
    history,
    user: user.message,
    budget: config.conversation.contextTokens,
    model: user.hasImages ? config.models.vision : settings.model,
    thinking: settings.thinking,
    webSearch: settings.webSearch,
    tools,
    registry: deps.tools,
    toolContext,
    maxToolRounds: config.conversation.maxToolRounds,
    signal,
    emit: turn.emit,
    usage: turn.usage,
    imageTokens: user.imageTokens,
  });
  if (result.finishReason !== null) turn.finishReason = result.finishReason;
  for (const notice of user.notices) turn.emit(notice);
  return [user.stored, ...result.messages.slice(1)];
}
