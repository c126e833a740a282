import { describe, expect, it } from 'vitest';
import { searchMessages, searchTokens } from '../../src/workspace/message-search.ts';
import { workspaceMessage } from '../helpers/memory-workspace.ts';

const texts = (found: { text: string }[]) => found.map((m) => m.text);

describe('searching a channel’s messages', () => {
  it('splits Chinese and Japanese into words, and keeps the character pairs of longer CJK words', () => {
    expect(searchTokens('我们决定发布日期是三月十四日')).toEqual(['我们', '决定', '发布', '日期', '是', '三月', '十四日', '十四', '四日']);
    expect(searchTokens('リリース日は3月14日に決まりました')).toContain('リリース');
    expect(searchTokens('Ｒｅｌｅａｓｅ date, v2.1!')).toEqual(['Release', 'date', 'v2.1']);
  });

  it('finds the message a Chinese or Japanese question is about, whatever else the channel holds', () => {
    const messages = [
      workspaceMessage('c', 1, '午饭吃什么？'),
      workspaceMessage('c', 2, '我们决定发布日期是三月十四日。'),
      workspaceMessage('c', 3, 'リリース日は3月14日に決まりました'),
      workspaceMessage('c', 4, '测试都通过了'),
    ];
    expect(texts(searchMessages(messages, '发布日期', 5))).toEqual(['我们决定发布日期是三月十四日。']);
    expect(texts(searchMessages(messages, 'リリース', 5))).toEqual(['リリース日は3月14日に決まりました']);
  });

  it('ranks by relevance (BM25) and leaves out matches far weaker than the best, such as on "the" alone', () => {
    const messages = [
      workspaceMessage('c', 1, 'the release date is March 14'),
      workspaceMessage('c', 2, 'the build is green'),
      workspaceMessage('c', 3, 'release notes are in the wiki'),
      workspaceMessage('c', 4, 'lunch at the usual place'),
    ];
    expect(texts(searchMessages(messages, 'the release date', 10))).toEqual(['the release date is March 14', 'release notes are in the wiki']);
    expect(searchMessages(messages, 'deployment', 10)).toEqual([]);
  });

  it('puts the newer first among equally good matches', () => {
    const messages = [
      workspaceMessage('c', 1, 'release date: March 14'),
      workspaceMessage('c', 2, 'lunch?'),
      workspaceMessage('c', 3, 'release date: March 21'),
    ];
    expect(texts(searchMessages(messages, 'release date', 10))).toEqual(['release date: March 21', 'release date: March 14']);
    expect(texts(searchMessages(messages, 'release date', 1))).toEqual(['release date: March 21']);
  });

  it('finds an author by name, and lists the newest messages for an empty query', () => {
    const messages = [workspaceMessage('c', 1, 'on it'), workspaceMessage('c', 2, 'done', { author: 'Carol' }), workspaceMessage('c', 3, 'thanks')];
    expect(texts(searchMessages(messages, 'carol', 5))).toEqual(['done']);
    expect(texts(searchMessages(messages, '  ', 2))).toEqual(['thanks', 'done']);
  });
});
