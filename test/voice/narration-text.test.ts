import { describe, expect, it } from 'vitest';
import { narrationFor } from '../../src/voice/narration.ts';
import { narrationText, skippedNotice, speakableText, summarizeAttachments } from '../../src/voice/narration-text.ts';

const image = (name = 'cat.png') => ({ name, contentType: 'image/png' });

describe('narration text', () => {
  it("reads the author's display name, then the text", () => {
    expect(narrationText({ authorName: 'Alice', text: 'Hello there', attachments: [] })).toBe('Alice says: Hello there.');
    expect(narrationText({ authorName: 'Bob', text: 'Really?', attachments: [] })).toBe('Bob says: Really?');
  });

  it('summarises attachments in a few words', () => {
    expect(narrationText({ authorName: 'Alice', text: 'look', attachments: [image(), image('dog.jpg')] })).toBe('Alice says: look. And two images.');
    expect(narrationText({ authorName: 'Alice', text: '', attachments: [image()] })).toBe('Alice sent an image.');
    expect(
      summarizeAttachments({
        attachments: [
          image(),
          { name: 'clip.mp4' },
          { name: 'notes.pdf', contentType: 'application/pdf' },
          { name: 'a.ogg', contentType: 'audio/ogg' },
        ],
        stickers: 2,
      }),
    ).toBe('an image, a video, a file, an audio clip and two stickers');
    expect(narrationText({ authorName: 'Alice', text: '', attachments: [] })).toBe('');
  });

  it('never reads code, spoilers, raw links or formatting marks', () => {
    expect(speakableText('**bold** and `code` see https://www.example.com/a?b=c ||the butler did it||')).toBe(
      'bold and code see a link to example.com a spoiler',
    );
    expect(speakableText('```ts\nconst x = 1;\n```\nthat fails <:blobcat:123456> for @Bob in #general')).toBe(
      'a code block. that fails blobcat for Bob in general',
    );
    expect(speakableText('> quoted\n# Title')).toBe('quoted Title');
    expect(speakableText('*so* __very__ ~~not~~ _sure_: 2 * 3 = 6, snake_case_name')).toBe('so very not sure: 2 * 3 = 6, snake_case_name');
  });

  it('cuts very long messages short', () => {
    const spoken = speakableText('word '.repeat(500));
    expect(spoken.length).toBeLessThan(420);
    expect(spoken.endsWith(', and so on.')).toBe(true);
  });

  it('announces dropped messages', () => {
    expect(skippedNotice(1)).toBe('Skipped one older message.');
    expect(skippedNotice(3)).toBe('Skipped three older messages.');
    expect(skippedNotice(42)).toBe('Skipped 42 older messages.');
  });
});

describe('which messages are narrated', () => {
  const narration = { textChannelId: 'text-1', voiceChannelId: 'voice-1' };
  const message = { channelId: 'text-1', authorId: 'alice', authorName: 'Alice', text: 'hi', attachments: [], fromBot: false };

  it('only those of the narrated channel from people, not bots or commands', () => {
    expect(narrationFor(narration, message)).toBe('Alice says: hi.');
    expect(narrationFor(narration, { ...message, channelId: 'text-2' })).toBeUndefined();
    expect(narrationFor(narration, { ...message, fromBot: true })).toBeUndefined();
    expect(narrationFor(narration, { ...message, fromCommand: true })).toBeUndefined();
    expect(narrationFor(narration, { ...message, text: '!play something' })).toBeUndefined();
    expect(narrationFor(narration, { ...message, text: '/say hi' })).toBeUndefined();
    expect(narrationFor(narration, { ...message, text: '/ shrug' })).toBe('Alice says: / shrug.');
    expect(narrationFor(narration, { ...message, text: '' })).toBeUndefined();
  });
});
