import { afterEach, describe, expect, it } from 'vitest';
import type { ChatInput } from '../../src/capabilities/chat.ts';
import type { Env } from '../../src/config/config.ts';
import { ConversationEngine } from '../../src/conversation/engine.ts';
import { estimateMessageTokens, estimateTextTokens } from '../../src/conversation/token-estimate.ts';
import type { IncomingMessage } from '../../src/conversation/types.ts';
import { ServerError } from '../../src/service/errors.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { summaryTask } from '../../src/workspace/summarize.ts';
import type { HistoryRange } from '../../src/workspace/workspace-history.ts';
import { fakeChat, type ScriptedAnswer } from '../conversation/fake-chat.ts';
import { testConfig } from '../conversation/fake-adapter.ts';
import { collectReply } from '../helpers/collect-reply.ts';
import { silentLogger } from '../helpers/logger.ts';
import { channelMessages, MemoryHistory } from './memory-history.ts';

const stores: MemoryStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

const asker: IncomingMessage = {
  platform: 'test',
  workspaceId: 'guild-1',
  channelId: 'C1',
  messageId: 'cmd-1',
  author: { id: 'U-dave', displayName: 'dave' },
  text: '/summarize',
  isDirect: false,
};

function setup(script: ScriptedAnswer[] | ((input: ChatInput, n: number) => ScriptedAnswer), env: Env = {}) {
  const store = new MemoryStore();
  stores.push(store);
  const config = testConfig(env);
  const fake = fakeChat(script);
  const engine = new ConversationEngine({ config, logger: silentLogger, store, chat: fake.chat });
  const run = (history: MemoryHistory, range: Partial<HistoryRange> = {}, sinceLastBy?: string) =>
    collectReply(
      engine.runTask(asker, summaryTask({ history, range: { channelId: 'C1', limit: 1000, ...range }, ...(sinceLastBy && { sinceLastBy }) }, config)),
    );
  return { engine, requests: fake.requests, run, config };
}

function prompt(input: ChatInput): string {
  return input.messages.map((m) => m.content).join('\n');
}

/** The message numbers a prompt's lines start with. */
function numbersIn(input: ChatInput): number[] {
  return [...prompt(input).matchAll(/^\[(\d+)\]/gm)].map((m) => Number(m[1]));
}

describe('summarize', () => {
  it('numbers the messages in the prompt and turns the markers into the messages as sources, numbered as they appear', async () => {
    const history = new MemoryHistory(
      channelMessages(4, (i) => ['We ship on Friday.', 'The build is broken.', 'I will fix it.', 'Agreed, Friday.'][i - 1]!),
    );
    const { run, requests, engine } = setup([{ text: ['- The build broke; bob fixes it [', '2, 3]\n- Release on Friday [1][4] and [99]'] }]);
    const reply = await run(history);

    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ thinking: false, webSearch: 'off', maxTokens: expect.any(Number) });
    expect(prompt(requests[0]!)).toMatch(/^\[1\] alice \(.+\): We ship on Friday\.\n\[2\] bob \(.+\): The build is broken\./);
    expect(requests[0]!.system).toContain('#launch');
    expect(reply.text).toBe('- The build broke; bob fixes it [1, 2]\n- Release on Friday [3][4] and ');
    // Shown whole, after its sources: one edit of the reply on the platform.
    expect(reply.events.filter((e) => e.type === 'text' || e.type === 'citations').map((e) => e.type)).toEqual(['citations', 'text']);
    expect(reply.citations.map((c) => [c.index, c.url, c.message?.author])).toEqual([
      [1, 'https://chat.example/launch/m2', 'bob'],
      [2, 'https://chat.example/launch/m3', 'carol'],
      [3, 'https://chat.example/launch/m1', 'alice'],
      [4, 'https://chat.example/launch/m4', 'alice'],
    ]);
    expect(reply.citations[0]).toMatchObject({
      title: 'The build is broken.',
      message: { channelName: 'launch', sentAt: history.messages[1]!.sentAt },
    });
    expect(reply.error).toBeUndefined();
    expect(reply.usage.serviceCalls).toBe(1);
    const usage = await engine.usage({ platform: 'test', userId: 'U-dave' });
    expect(usage.today.totalTokens).toBe(15);
  });

  it('reads the range asked for and says so when nothing is in it, without asking the model', async () => {
    const history = new MemoryHistory(channelMessages(5, (i) => `message ${i}`));
    const { run, requests } = setup([]);
    const since = history.messages.at(-1)!.sentAt + 1;
    const reply = await run(history, { since, limit: 50 });
    expect(history.reads).toEqual([{ channelId: 'C1', since, limit: 50 }]);
    expect(reply.text).toBe('There are no messages to summarize there.');
    expect(requests).toHaveLength(0);
    expect(reply.usage.serviceCalls).toBe(0);
  });

  it('catches the asker up since they last wrote, or on the newest messages when they wrote none', async () => {
    const history = new MemoryHistory(channelMessages(150, (i) => `message ${i}`));
    Object.assign(history.messages[146]!, { authorId: 'U-dave', author: 'dave' });
    const { run, requests } = setup(() => ({ text: 'ok' }));
    await run(history, {}, 'U-dave');
    expect(prompt(requests[0]!)).toMatch(/^\[1\] [a-z]+ \(.+\): message 148\n\[2\] .*message 149\n\[3\] .*message 150$/);
    await run(history, {}, 'U-erin');
    expect(numbersIn(requests[1]!)).toHaveLength(100);
    expect(prompt(requests[1]!)).toMatch(/^\[1\] .*: message 51\n/);
    Object.assign(history.messages[149]!, { authorId: 'U-dave', author: 'dave' });
    expect((await run(history, {}, 'U-dave')).text).toBe('Nothing has been said there since your last message.');
    expect(requests).toHaveLength(2);
  });

  it('is refused by the asker’s rate limit like a question, before any request', async () => {
    const history = new MemoryHistory(channelMessages(3, (i) => `message ${i}`));
    const { run, requests } = setup(() => ({ text: 'ok [1]' }), { QUOTA_USER_PER_MINUTE: '1' });
    expect((await run(history)).text).toBe('ok [1]');
    const refused = await run(history);
    expect(refused.error).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('limit of 1 request per minute') });
    expect(requests).toHaveLength(1);
  });

  it('reads no more of an answer than its cap allows, and a failed part ends the summary with one error line', async () => {
    const history = new MemoryHistory(channelMessages(3, (i) => `message ${i}`));
    const endless = setup([{ text: Array.from({ length: 100 }, () => 'x'.repeat(1000)) }]);
    const bounded = await endless.run(history);
    expect(bounded.text.length).toBeLessThanOrEqual(8 * endless.requests[0]!.maxTokens!);

    const long = new MemoryHistory(channelMessages(200, (i) => `status update number ${i} about the launch checklist and its owners`));
    const failing = setup(
      [{ text: '- first [1]' }, { error: new ServerError('The service had a problem (503). Please try again in a moment.', { status: 503 }) }],
      { CONTEXT_TOKENS: '3000' },
    );
    const failed = await failing.run(long);
    expect(failed.text).toBe('');
    expect(failed.error).toMatchObject({ type: 'error', code: 'service' });
    expect(failed.citations).toEqual([]);
  });

  it('tells the asker how far back the reader got when it was cut short', async () => {
    const history = new MemoryHistory(channelMessages(3, (i) => `message ${i}`));
    history.cutShort = 'I could read only the last 3 messages (since 08:00).';
    const { run } = setup([{ text: 'Three messages [3].' }]);
    const reply = await run(history);
    expect(reply.text).toBe('Three messages [1].');
    expect(reply.notices).toEqual([{ type: 'notice', code: 'summary_incomplete', text: history.cutShort }]);
  });

  it('summarizes a range too long for the context in parts and combines them, citing the original messages', async () => {
    const history = new MemoryHistory(channelMessages(200, (i) => `status update number ${i} about the launch checklist and its owners`));
    // Each part cites its first and last message; the combining request repeats the parts' points, as a model would.
    const { run, requests, config } = setup(
      (input) => {
        if (input.system!.includes('summaries of its consecutive parts')) {
          return { text: [...prompt(input).matchAll(/^- .*$/gm)].map((m) => m[0]).join('\n') };
        }
        const numbers = numbersIn(input);
        return { text: `- from [${numbers[0]}] to [${numbers.at(-1)}]` };
      },
      { CONTEXT_TOKENS: '3000' },
    );
    const reply = await run(history);

    const parts = requests.slice(0, -1);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of requests) {
      const tokens = estimateTextTokens(part.system!) + part.messages.reduce((sum, m) => sum + estimateMessageTokens(m, () => 0), 0);
      expect(tokens + part.maxTokens!).toBeLessThanOrEqual(config.conversation.contextTokens);
    }
    const covered = parts.flatMap(numbersIn);
    expect(covered).toEqual(Array.from({ length: 200 }, (_, k) => k + 1));
    const cited = reply.citations.map((c) => c.url);
    const expected = parts.flatMap((p) => [numbersIn(p)[0]!, numbersIn(p).at(-1)!]).map((n) => `https://chat.example/launch/m${n}`);
    expect(cited).toEqual(expected);
    expect(reply.text.split('\n')[0]).toBe('- from [1] to [2]');
    expect(reply.notices).toEqual([]);
  });

  it('leaves out the oldest messages when the parts are capped, and says so', async () => {
    const history = new MemoryHistory(channelMessages(1000, (i) => `update ${i}: ${'the checklist has more items to review today '.repeat(4)}`));
    const { run, requests } = setup(
      (input) => {
        if (input.system!.includes('summaries of its consecutive parts')) return { text: 'Combined.' };
        return { text: `- up to [${numbersIn(input).at(-1)}]` };
      },
      { CONTEXT_TOKENS: '4000' },
    );
    const reply = await run(history);
    const parts = requests.slice(0, -1);
    const covered = parts.flatMap(numbersIn);
    expect(covered.at(-1)).toBe(1000);
    expect(covered.length).toBeLessThan(1000);
    expect(reply.notices).toEqual([
      { type: 'notice', code: 'summary_incomplete', text: expect.stringContaining(`the oldest ${1000 - covered.length} messages, before `) },
    ]);
  });
});
