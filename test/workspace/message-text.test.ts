import { describe, expect, it } from 'vitest';
import { messageText } from '../../src/workspace/message-text.ts';

describe('a message’s text', () => {
  it('joins its parts a line each and stays within 8,000 characters', () => {
    expect(messageText(['hello', '', '[file a.txt]\nbody'])).toBe('hello\n[file a.txt]\nbody');
    const long = messageText(['x'.repeat(50_000)]);
    expect(long).toHaveLength(8_000);
    expect(long.endsWith('…')).toBe(true);
  });
});
