import { describe, expect, it } from 'vitest';
import { closeOpenFence, openFenceAt, splitMarkdown } from '../../src/streaming/markdown-split.ts';

function fencesBalanced(part: string): boolean {
  return openFenceAt(part) === undefined;
}

describe('splitMarkdown', () => {
  it('keeps short text whole', () => {
    expect(splitMarkdown('hello', 2000)).toEqual(['hello']);
  });

  it('cuts at paragraph breaks before lines, and at lines before words', () => {
    const para = 'a'.repeat(60);
    const parts = splitMarkdown(`${para}\n\n${para}\n${para}`, 130);
    expect(parts[0]).toBe(`${para}\n\n${para}`);
    expect(parts[1]).toBe(para);
  });

  it('never cuts inside a word when spaces exist', () => {
    const text = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const parts = splitMarkdown(text, 2000);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(2000);
      expect(part).toMatch(/^word\d+( word\d+)*$/);
    }
    expect(parts.join(' ')).toBe(text);
  });

  it('closes a code block at the cut and reopens it with its language in the next part', () => {
    const code = Array.from({ length: 120 }, (_, i) => `console.log(${i});`).join('\n');
    const text = `Here is code:\n\n\`\`\`js\n${code}\n\`\`\`\n\nDone.`;
    const parts = splitMarkdown(text, 500);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(500);
      expect(fencesBalanced(part)).toBe(true);
    }
    expect(parts[1]!.startsWith('```js\n')).toBe(true);
    const lines = parts
      .join('\n')
      .split('\n')
      .filter((l) => l.startsWith('console.log'));
    expect(lines).toEqual(code.split('\n'));
    expect(parts.at(-1)!.endsWith('Done.')).toBe(true);
  });

  it('does not split a surrogate pair when there is no boundary at all', () => {
    const text = '😀'.repeat(1500);
    const parts = splitMarkdown(text, 2000);
    for (const part of parts) expect(part).not.toMatch(/[\ud800-\udbff]$|^[\udc00-\udfff]/);
    expect(parts.join('')).toBe(text);
  });
});

describe('closeOpenFence', () => {
  it('closes a block the stream left open and leaves balanced text alone', () => {
    expect(closeOpenFence('x\n```py\nprint(1)')).toBe('x\n```py\nprint(1)\n```');
    expect(closeOpenFence('```\na\n```\n')).toBe('```\na\n```\n');
    expect(closeOpenFence('~~~~\nq\n')).toBe('~~~~\nq\n~~~~');
  });
});
