import { describe, expect, it } from 'vitest';
import { estimateMessageTokens, estimateTextTokens } from '../../src/conversation/token-estimate.ts';

describe('estimateTextTokens', () => {
  it('counts English at about four characters per token', () => {
    expect(estimateTextTokens('')).toBe(0);
    expect(estimateTextTokens('abcd')).toBe(1);
    expect(estimateTextTokens('The quick brown fox jumps over the lazy dog.')).toBe(11);
  });

  it('counts CJK characters, kana, Hangul and emoji as one token each', () => {
    expect(estimateTextTokens('你好世界')).toBe(4);
    expect(estimateTextTokens('こんにちは')).toBe(5);
    expect(estimateTextTokens('안녕하세요')).toBe(5);
    expect(estimateTextTokens('👍🎉')).toBe(2);
    expect(estimateTextTokens('你好，世界！')).toBe(6);
  });

  it('counts other non-ASCII letters at two per token', () => {
    expect(estimateTextTokens('привет')).toBe(3);
    expect(estimateTextTokens('déjà')).toBe(2);
  });

  it('never estimates a CJK text lower than the same length of English', () => {
    const chinese = '我们今天下午三点在会议室讨论新项目的计划。'.repeat(10);
    expect(estimateTextTokens(chinese)).toBeGreaterThan(estimateTextTokens('x'.repeat(chinese.length)));
  });
});

describe('estimateMessageTokens', () => {
  it('adds message overhead, reasoning, tool calls and image estimates', () => {
    const images = (url: string) => (url === 'data:image/png;base64,AA' ? 256 : 0);
    expect(estimateMessageTokens({ role: 'user', content: 'abcd' }, images)).toBe(5);
    expect(
      estimateMessageTokens(
        {
          role: 'user',
          content: [
            { type: 'text', text: 'abcd' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
          ],
        },
        images,
      ),
    ).toBe(4 + 1 + 256);
    expect(
      estimateMessageTokens(
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'abcdabcd',
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'calc', arguments: '{"a":1}' } }],
        },
        images,
      ),
    ).toBe(4 + 2 + 4 + 1 + 2);
  });
});
