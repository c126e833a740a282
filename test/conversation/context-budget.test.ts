import { describe, expect, it } from 'vitest';
import { fitContext, newestWithin, type Exchange } from '../../src/conversation/context-budget.ts';
import type { ChatMessage } from '../../src/service/types.ts';

function exchange(label: string, tokens: number): Exchange {
  return {
    messages: [
      { role: 'user', content: `${label}?` },
      { role: 'assistant', content: `${label}!` },
    ],
    tokens,
    at: 0,
  };
}

const toolExchange: Exchange = {
  messages: [
    { role: 'user', content: 'calc?' },
    {
      role: 'assistant',
      content: null,
      reasoning_content: 'need math',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calculate', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: '4' },
    { role: 'assistant', content: 'It is 4.' },
  ],
  tokens: 40,
  at: 0,
};

const current: ChatMessage[] = [{ role: 'user', content: 'now?' }];

describe('fitContext', () => {
  it('keeps everything that fits', () => {
    const fit = fitContext({ systemTokens: 10, history: [exchange('a', 10), exchange('b', 10)], current, currentTokens: 5, budget: 100 });
    expect(fit).toMatchObject({ dropped: 0, tokens: 35, fits: true });
    expect(fit.messages.map((m) => m.content)).toEqual(['a?', 'a!', 'b?', 'b!', 'now?']);
  });

  it('drops the oldest exchanges first and keeps the newest that fit', () => {
    const fit = fitContext({
      systemTokens: 10,
      history: [exchange('a', 30), exchange('b', 30), exchange('c', 30)],
      current,
      currentTokens: 5,
      budget: 70,
    });
    expect(fit.dropped).toBe(2);
    expect(fit.messages.map((m) => m.content)).toEqual(['c?', 'c!', 'now?']);
  });

  it('never keeps a newer exchange while an older one in between is dropped', () => {
    const fit = fitContext({
      systemTokens: 0,
      history: [exchange('a', 1), exchange('big', 90), exchange('c', 5)],
      current,
      currentTokens: 5,
      budget: 50,
    });
    expect(fit.messages.map((m) => m.content)).toEqual(['c?', 'c!', 'now?']);
  });

  it('drops a tool-calling exchange whole: no tool result without its call', () => {
    const fit = fitContext({ systemTokens: 0, history: [toolExchange, exchange('b', 10)], current, currentTokens: 5, budget: 30 });
    expect(fit.messages.some((m) => m.role === 'tool' || m.tool_calls)).toBe(false);
    const kept = fitContext({ systemTokens: 0, history: [toolExchange, exchange('b', 10)], current, currentTokens: 5, budget: 60 });
    expect(kept.messages.slice(0, 4)).toEqual(toolExchange.messages);
  });

  it('says when even the system prompt and the current turn do not fit', () => {
    const fit = fitContext({ systemTokens: 50, history: [exchange('a', 1)], current, currentTokens: 60, budget: 100 });
    expect(fit).toMatchObject({ fits: false, dropped: 1 });
  });
});

describe('newestWithin', () => {
  it('keeps the newest exchanges up to the budget', () => {
    expect(newestWithin([exchange('a', 50), exchange('b', 30), exchange('c', 30)], 70).map((e) => e.messages[0]!.content)).toEqual(['b?', 'c?']);
  });
});
