import type { ConversationEngine } from '../../src/conversation/engine.ts';

/** Resolves once the engine has forgotten what a deleted message brought into memory. */
export function nextForget(engine: ConversationEngine): Promise<void> {
  const forget = engine.forget.bind(engine);
  return new Promise((resolve) => {
    engine.forget = async (key, messageId) => {
      const forgotten = await forget(key, messageId);
      engine.forget = forget;
      resolve();
      return forgotten;
    };
  });
}
