import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../../src/core.ts';
import { ConversationEngine } from '../../src/conversation/engine.ts';
import type { IncomingMessage, ReplyStream } from '../../src/conversation/types.ts';
import type {
  AnswerAction,
  AnswerControls,
  AnswerEditor,
  AnswerPress,
  AnswerWriter,
  Question,
  ShownAnswer,
  WrittenAnswer,
} from '../../src/platform/platform.ts';
import { QuestionFlow } from '../../src/platform/question-flow.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import type { Citation } from '../../src/service/types.ts';
import { testConfig } from '../conversation/fake-adapter.ts';
import { fakeChat, type ScriptedAnswer } from '../conversation/fake-chat.ts';
import { silentLogger } from '../helpers/logger.ts';

const stores: MemoryStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** The answer's messages on a platform that keeps them as a list of texts, with the controls on the last one. */
class Messages implements AnswerEditor {
  texts: string[] = [];
  /** The sources listed under the answer, by URL. */
  sources: string[] = [];
  controls: AnswerControls = {};
  readonly log: string[] = [];

  async showControls(_keys: readonly string[], controls: AnswerControls): Promise<void> {
    this.controls = controls;
    this.log.push(`controls ${JSON.stringify(controls)}`);
  }

  async rewrite(_keys: readonly string[], { text, citations = [] }: ShownAnswer, controls: AnswerControls): Promise<string[]> {
    this.texts = [text];
    this.sources = citations.map((c) => c.url);
    this.controls = controls;
    this.log.push(`rewrite ${text}`);
    return ['answer'];
  }
}

class Writer extends Messages implements AnswerWriter {
  readonly #shared: Messages;
  writing?: AnswerControls;

  constructor(shared: Messages) {
    super();
    this.#shared = shared;
  }

  async write(stream: ReplyStream, _signal: AbortSignal, controls?: AnswerControls): Promise<WrittenAnswer> {
    this.writing = controls;
    let text = '';
    let citations: Citation[] = [];
    for await (const event of stream) {
      if (event.type === 'text') text += event.delta;
      if (event.type === 'citations') citations = event.citations;
    }
    this.#shared.texts = [text];
    this.#shared.sources = citations.map((c) => c.url);
    return { messageKeys: ['answer'], text, citations };
  }

  override showControls(keys: readonly string[], controls: AnswerControls): Promise<void> {
    return this.#shared.showControls(keys, controls);
  }

  async remove(): Promise<void> {
    this.#shared.texts = [];
  }

  async fail(): Promise<void> {}
  async close(): Promise<void> {}
}

/** One Herald instance: its own engine and flow on the shared store. */
function instance(store: MemoryStore, script: (n: number) => ScriptedAnswer) {
  const config = testConfig();
  const chat = fakeChat((_input, n) => script(n));
  const engine = new ConversationEngine({ config, logger: silentLogger, store, chat: chat.chat });
  const core = { engine, store, config } as unknown as Pick<Core, 'engine' | 'store' | 'config'>;
  return { flow: new QuestionFlow({ platform: 'test', core, logger: silentLogger }), requests: chat.requests };
}

describe('QuestionFlow: the controls on an answer', () => {
  const messages = new Messages();
  const writers: Writer[] = [];
  const incoming: IncomingMessage = {
    platform: 'test',
    workspaceId: 'w',
    channelId: 'c',
    messageId: 'q1',
    author: { id: 'alice', displayName: 'Alice' },
    text: 'what is it?',
    isDirect: false,
  };
  const question: Question = {
    key: 'q1',
    text: incoming.text,
    sentAt: Date.now(),
    read: async () => incoming,
    openAnswer: () => {
      const writer = new Writer(messages);
      writers.push(writer);
      return writer;
    },
  };
  const press = (action: AnswerAction, userId = 'alice', mayModerate = false): AnswerPress => ({
    questionKey: 'q1',
    action,
    userId,
    mayModerate,
    editor: messages,
    question: async () => question,
  });

  it('lets only the asker or a moderator press; Stop on another instance ends the answer; Regenerate there adds a version', async () => {
    const store = new MemoryStore();
    stores.push(store);
    const here = instance(store, () => ({ text: 'slow answer', delayMs: 60_000 }));
    let draws = 0;
    const there = instance(store, () => {
      draws += 1;
      return { text: `answer ${draws} [1]`, citations: [{ index: 1, url: `https://example.org/${draws}`, title: `source of ${draws}` }] };
    });

    expect(await there.flow.pressed(press('stop'))).toBe('gone');
    const asked = here.flow.asked(question);
    await new Promise<void>((resolve) => {
      const check = () => (writers[0]?.writing ? resolve() : setImmediate(check));
      check();
    });
    expect(writers[0]!.writing).toEqual({ stop: true });
    expect(await there.flow.pressed(press('stop', 'bob'))).toBe('refused');
    expect(await there.flow.pressed(press('stop', 'bob', true))).toBe('done');
    await asked;
    expect(messages.controls).toEqual({ regenerate: true });
    expect(await there.flow.pressed(press('next'))).toBe('gone');

    expect(await there.flow.pressed(press('regenerate', 'bob'))).toBe('refused');
    expect(await there.flow.pressed(press('regenerate'))).toBe('done');
    // A second press while it is answered again is the same request: no second answer.
    expect(await here.flow.pressed(press('regenerate'))).toBe('done');
    await new Promise<void>((resolve) => {
      const check = () => (messages.controls.version ? resolve() : setImmediate(check));
      check();
    });
    expect(messages.texts).toEqual(['answer 1 [1]']);
    expect(messages.sources).toEqual(['https://example.org/1']);
    expect(messages.controls).toEqual({ regenerate: true, version: { shown: 2, count: 2 } });
    expect(there.requests).toHaveLength(1);
    expect(here.requests).toHaveLength(1);

    expect(await here.flow.pressed(press('previous'))).toBe('done');
    // The stopped first answer had no sources: the second's go with its text.
    expect(messages.texts).toEqual(['']);
    expect(messages.sources).toEqual([]);
    expect(messages.controls).toEqual({ regenerate: true, version: { shown: 1, count: 2 } });
    expect(await here.flow.pressed(press('previous'))).toBe('gone');
    expect(await here.flow.pressed(press('next', 'mod', true))).toBe('done');
    expect(messages.texts).toEqual(['answer 1 [1]']);
    expect(messages.sources).toEqual(['https://example.org/1']);
  });
});
