import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ask } from '../../commands/ask.ts';
import type { CommandDefinition } from '../../commands/command.ts';
import { describe as describeCommand } from '../../commands/describe.ts';
import { narrate } from '../../commands/narrate.ts';
import { say } from '../../commands/say.ts';
import { settings } from '../../commands/settings.ts';
import { transcribe } from '../../commands/transcribe.ts';
import { parseCommandText, usageLine } from '../../adapters/slack/command-options.ts';
import { expectLinearTime } from '../support/linear-time.ts';

function options(result: ReturnType<typeof parseCommandText>) {
  if ('error' in result) throw new Error(result.error);
  return Object.fromEntries(result.options);
}

describe('slash command text', () => {
  it('reads flags anywhere and the rest as the main option', () => {
    expect(options(parseCommandText(ask, '--search what  happened today? --reasoning'))).toEqual({
      search: true,
      reasoning: true,
      question: 'what happened today?',
    });
    expect(options(parseCommandText(ask, 'is 2 -- 3 a range? --no-search'))).toEqual({ search: false, question: 'is 2 -- 3 a range?' });
  });

  it('takes choices by value or name, quoted values, and - or _ in names', () => {
    expect(options(parseCommandText(say, '--voice=zh --style="slow down" --sing 你好'))).toEqual({
      voice: 'zh',
      style: 'slow down',
      sing: true,
      text: '你好',
    });
    expect(options(parseCommandText(settings, '--web-search=auto --thinking=on --persona=“a pirate”'))).toEqual({
      web_search: 'auto',
      thinking: 'on',
      persona: 'a pirate',
    });
    expect(options(parseCommandText(describeCommand, 'what colour is it?'))).toEqual({ question: 'what colour is it?' });
  });

  it('leaves unknown --words in the text', () => {
    expect(options(parseCommandText(ask, 'what does --verbose do?'))).toEqual({ question: 'what does --verbose do?' });
  });

  it('explains what is wrong', () => {
    const error = (r: ReturnType<typeof parseCommandText>) => ('error' in r ? r.error : 'no error');
    expect(error(parseCommandText(ask, '--search'))).toBe(`Please add the question: ${usageLine(ask)}`);
    expect(error(parseCommandText(say, '--voice=klingon hi'))).toBe('--voice must be one of default, zh, en.');
    expect(error(parseCommandText(settings, 'make it fun'))).toMatch(
      /^\/settings takes no text besides its options: \/settings \[--scope=server\|channel\]/,
    );
    expect(error(parseCommandText(ask, 'x'.repeat(4001)))).toBe('The question can be at most 4000 characters.');
    expect(error(parseCommandText(ask, '--search=maybe why'))).toBe('--search is on or off, not “maybe”.');
    expect(options(parseCommandText(transcribe, ''))).toEqual({});
  });

  it('shows each command’s usage', () => {
    expect(usageLine(ask)).toBe('/ask <question> [--search | --no-search] [--reasoning | --no-reasoning]');
    const speak: CommandDefinition = {
      name: 'speak',
      description: 'test',
      options: [
        { name: 'text', description: 'what', type: 'string', required: true },
        {
          name: 'voice',
          description: 'which',
          type: 'string',
          choices: [
            { name: 'A', value: 'a' },
            { name: 'B', value: 'b' },
          ],
        },
        { name: 'max_seconds', description: 'how long', type: 'integer' },
        { name: 'file', description: 'a file', type: 'attachment' },
      ],
      run: async () => {},
    };
    expect(usageLine(speak)).toBe('/speak <text> [--voice=a|b] [--max-seconds=…]');
    expect(options(parseCommandText(speak, '--max-seconds=12 hi'))).toEqual({ max_seconds: 12, text: 'hi' });
  });

  it('takes a subcommand as the first word and explains the choices when it is missing or wrong', () => {
    expect(parseCommandText(narrate, 'STOP')).toEqual({ subcommand: 'stop', options: new Map() });
    expect(parseCommandText(narrate, ' start --voice=zh --style=calm')).toEqual({
      subcommand: 'start',
      options: new Map([
        ['voice', 'zh'],
        ['style', 'calm'],
      ]),
    });
    const choices =
      'Tell /narrate what to do first:\n' +
      '• /narrate start [#channel] [--voice=default|zh|en] [--style=…] — Start reading new messages aloud in your voice channel\n' +
      '• /narrate stop — Stop reading aloud';
    expect(parseCommandText(narrate, '')).toEqual({ error: choices });
    expect(parseCommandText(narrate, 'help')).toEqual({ error: choices });
    expect(parseCommandText(narrate, '--voice=zh start')).toEqual({ error: `“--voice=zh” is not something /narrate does. ${choices}` });
    expect(parseCommandText(narrate, 'stop now')).toEqual({ error: '/narrate stop takes no text besides its options: /narrate stop' });
  });

  it('reads a channel Slack linked, anywhere in the text or as --name=, and leaves links alone where no channel is taken', () => {
    expect(parseCommandText(narrate, 'start <#C0123ABCDE|general> --style=calm')).toEqual({
      subcommand: 'start',
      options: new Map([
        ['style', 'calm'],
        ['channel', 'C0123ABCDE'],
      ]),
    });
    expect(options(parseCommandText(narrate, 'start --channel=<#G0123ABCDE>'))).toEqual({ channel: 'G0123ABCDE' });
    const digest: CommandDefinition = {
      name: 'digest',
      description: 'test',
      options: [
        { name: 'topic', description: 'what', type: 'string' },
        { name: 'source', description: 'where from', type: 'channel', required: true },
      ],
      run: async () => {},
    };
    expect(usageLine(digest)).toBe('/digest [topic] <#source>');
    expect(options(parseCommandText(digest, 'pricing in <#C0123ABCDE|sales> and <#C0456ABCDE|ops>'))).toEqual({
      source: 'C0123ABCDE',
      topic: 'pricing in and <#C0456ABCDE|ops>',
    });
    expect(parseCommandText(digest, 'pricing')).toEqual({ error: 'Please add the source: /digest [topic] <#source>' });
    expect(options(parseCommandText(ask, 'what is <#C0123ABCDE|general> for?'))).toEqual({ question: 'what is <#C0123ABCDE|general> for?' });
  });

  it('explains a channel Slack did not link', () => {
    const error = (r: ReturnType<typeof parseCommandText>) => ('error' in r ? r.error : 'no error');
    expect(error(parseCommandText(narrate, 'start #general'))).toBe(
      "Slack did not link #general to a channel: type # and pick the channel from Slack's list. /narrate start [#channel] [--voice=default|zh|en] [--style=…]",
    );
    expect(error(parseCommandText(narrate, 'start --channel=general'))).toBe("--channel takes a channel: type # and pick it from Slack's list.");
  });
});

describe('slash command text from anyone', () => {
  const commands: CommandDefinition[] = [ask, say, settings, transcribe, narrate, describeCommand];
  const commandText = fc
    .array(
      fc.oneof(
        fc.constantFrom(
          '--',
          '--search',
          '--no-search',
          '--voice=',
          '="',
          '"',
          '“',
          '”',
          "'",
          '#general',
          '#1',
          '<#C12345678|general>',
          '<#C1|',
          'start',
          'stop',
          ' ',
          '  ',
          'x',
        ),
        fc.string({ maxLength: 12 }),
      ),
      { maxLength: 40 },
    )
    .map((pieces) => pieces.join(''));

  it('answers any text with options or a one-line-per-reason error, never a throw', () => {
    fc.assert(
      fc.property(fc.constantFrom(...commands), commandText, (command, text) => {
        const result = parseCommandText(command, text);
        if ('error' in result) {
          expect(result.error).toEqual(expect.any(String));
          expect(result.error.length).toBeGreaterThan(0);
        } else {
          for (const value of result.options.values()) expect(['string', 'number', 'boolean']).toContain(typeof value);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['an unlinked channel name that never ends', (n: number) => `start #${'a'.repeat(n)}!`],
    ['channel links that never close', (n: number) => `start ${'<#C1|'.repeat(n / 5)}`],
    ['quoted values that never close', (n: number) => '--style="'.repeat(n / 9)],
  ])('reads 200k characters of %s in linear time', (_name, text) => {
    expectLinearTime((size) => {
      parseCommandText(narrate, text(size));
      parseCommandText(say, text(size));
    });
  });
});
