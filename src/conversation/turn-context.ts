import type { ConversationKey, HandleOptions, IncomingMessage, ReplyEvent, ReplyUsage } from './types.ts';

/** Everything about one message being answered, passed whole through admission, the user-turn builder and the reply. */
export interface TurnContext {
  message: IncomingMessage;
  key: ConversationKey;
  /** conversationId(key): the lock, the turn registry and log lines use it. */
  conversation: string;
  options: HandleOptions;
  signal: AbortSignal;
  emit: (event: ReplyEvent) => void;
  /** Added to as each service response reports its usage. */
  usage: ReplyUsage;
  /** Why the service ended the answer's last response, once it did. */
  finishReason?: string;
}
