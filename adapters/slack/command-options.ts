/**
 * Slack slash commands carry one line of text. Herald reads options from it as `--name=value`, `--flag` and
 * `--no-flag` (names from the command's definition, `-` or `_` alike); the rest of the text is the command's main
 * option, e.g. `/ask --search what happened today?` or `/say --voice=zh --style="slow down" 你好`. A command with
 * subcommands takes one as its first word (`/narrate stop`), and a channel option a channel Slack linked
 * (`<#C123|general>`, what `#general` becomes in a command whose manifest entry has should_escape), anywhere.
 */
import type { CommandDefinition, CommandOption, OptionValue } from '../../commands/command.ts';

export type ParsedOptions = { subcommand?: string; options: Map<string, OptionValue> } | { error: string };

const FLAG = /(^|\s)--(no-)?([A-Za-z][\w-]*)(?:=(?:"([^"]*)"|“([^”]*)”|'([^']*)'|(\S+)))?(?=\s|$)/g;
// A label never holds `<` (Slack escapes it), which keeps a scan from running past the next link.
const CHANNEL_MENTION = /<#([CGD][A-Z0-9]+)(?:\|[^<>]*)?>/;
const CHANNEL_ID = /^[CGD][A-Z0-9]{8,}$/;
/** `#general` as typed, when Slack did not turn it into a link (a name has a letter: `#1` is a number). */
const CHANNEL_NAME = /(^|\s)#([a-z0-9_-]+)(?=\s|$)/g;

/** The option the free text fills: the first text option, unless that one is a choice. */
function mainOption(options: readonly CommandOption[]): CommandOption | undefined {
  const first = options.find((o) => o.type === 'string');
  return first && !first.choices ? first : undefined;
}

function usageOf(invocation: string, options: readonly CommandOption[]): string {
  const main = mainOption(options);
  const parts = [invocation];
  if (main) parts.push(main.required ? `<${main.name}>` : `[${main.name}]`);
  for (const option of options) {
    if (option === main || option.type === 'attachment') continue;
    const name = option.name.replace(/_/g, '-');
    if (option.type === 'channel') parts.push(option.required ? `<#${name}>` : `[#${name}]`);
    else if (option.type === 'boolean') parts.push(`[--${name} | --no-${name}]`);
    else if (option.choices) parts.push(`[--${name}=${option.choices.map((c) => c.value).join('|')}]`);
    else parts.push(`[--${name}=…]`);
  }
  return parts.join(' ');
}

/** How to use a command: one line, or for a command with subcommands a line per subcommand with what it does. */
export function usageLine(definition: CommandDefinition): string {
  if (!definition.subcommands) return usageOf(`/${definition.name}`, definition.options);
  return definition.subcommands.map((s) => `• ${usageOf(`/${definition.name} ${s.name}`, s.options)} — ${s.description}`).join('\n');
}

export function parseCommandText(definition: CommandDefinition, text: string): ParsedOptions {
  if (!definition.subcommands) return parseOptions(`/${definition.name}`, definition.options, text);
  const word = /^\s*(\S+)/.exec(text)?.[1];
  const subcommand = definition.subcommands.find((s) => s.name === word?.toLowerCase());
  if (!subcommand) {
    const unknown = word !== undefined && word.toLowerCase() !== 'help' ? `“${word}” is not something /${definition.name} does. ` : '';
    return { error: `${unknown}Tell /${definition.name} what to do first:\n${usageLine(definition)}` };
  }
  const parsed = parseOptions(`/${definition.name} ${subcommand.name}`, subcommand.options, text.replace(/^\s*\S+/, ''));
  return 'error' in parsed ? parsed : { subcommand: subcommand.name, options: parsed.options };
}

function parseOptions(invocation: string, definitions: readonly CommandOption[], text: string): ParsedOptions {
  const options = new Map<string, OptionValue>();
  const byName = new Map(definitions.map((o) => [o.name.replace(/-/g, '_').toLowerCase(), o]));
  let problem: string | undefined;
  let rest = text.replace(FLAG, (whole, lead: string, negated: string | undefined, rawName: string, ...quoted: Array<string | undefined>) => {
    const option = byName.get(rawName.replace(/-/g, '_').toLowerCase());
    if (!option || option.type === 'attachment') return whole;
    const value = quoted.slice(0, 4).find((v) => v !== undefined);
    const parsed = optionValue(option, value, negated !== undefined);
    if ('error' in parsed) problem ??= parsed.error;
    else options.set(option.name, parsed.value);
    return lead;
  });
  if (problem) return { error: problem };
  const usage = usageOf(invocation, definitions);
  for (const option of definitions) {
    if (option.type !== 'channel' || options.has(option.name)) continue;
    const mention = CHANNEL_MENTION.exec(rest);
    if (mention) {
      options.set(option.name, mention[1]!);
      rest = rest.replace(mention[0], ' ');
    } else {
      const unlinked = [...rest.matchAll(CHANNEL_NAME)].map((match) => match[2]!).find((name) => /[a-z]/.test(name));
      if (unlinked) return { error: `Slack did not link #${unlinked} to a channel: type # and pick the channel from Slack's list. ${usage}` };
    }
  }
  const main = mainOption(definitions);
  const free = rest.replace(/\s+/g, ' ').trim();
  if (main && free !== '') {
    if (main.maxLength !== undefined && free.length > main.maxLength)
      return { error: `The ${main.name} can be at most ${main.maxLength} characters.` };
    options.set(main.name, free);
  } else if (free !== '') {
    return { error: `${invocation} takes no text besides its options: ${usage}` };
  }
  const missing = definitions.find((o) => o.required && o.type !== 'attachment' && !options.has(o.name));
  if (missing) return { error: `Please add the ${missing.name}: ${usage}` };
  return { options };
}

function optionValue(option: CommandOption, value: string | undefined, negated: boolean): { value: OptionValue } | { error: string } {
  const flag = `--${option.name.replace(/_/g, '-')}`;
  if (option.type === 'boolean') {
    if (value === undefined) return { value: !negated };
    if (/^(true|yes|on|1)$/i.test(value)) return { value: !negated };
    if (/^(false|no|off|0)$/i.test(value)) return { value: negated };
    return { error: `${flag} is on or off, not “${value}”.` };
  }
  if (negated || value === undefined || value === '') return { error: `${flag} needs a value, like ${flag}=…` };
  if (option.type === 'channel') {
    const id = new RegExp(`^${CHANNEL_MENTION.source}$`).exec(value)?.[1] ?? (CHANNEL_ID.test(value) ? value : undefined);
    return id === undefined ? { error: `${flag} takes a channel: type # and pick it from Slack's list.` } : { value: id };
  }
  if (option.type === 'integer') {
    const n = Number(value);
    if (!Number.isInteger(n)) return { error: `${flag} must be a whole number.` };
    if (option.minValue !== undefined && n < option.minValue) return { error: `${flag} must be at least ${option.minValue}.` };
    if (option.maxValue !== undefined && n > option.maxValue) return { error: `${flag} must be at most ${option.maxValue}.` };
    return { value: n };
  }
  if (option.choices) {
    const choice = option.choices.find((c) => c.value.toLowerCase() === value.toLowerCase() || c.name.toLowerCase() === value.toLowerCase());
    if (!choice) return { error: `${flag} must be one of ${option.choices.map((c) => c.value).join(', ')}.` };
    return { value: choice.value };
  }
  if (option.maxLength !== undefined && value.length > option.maxLength) return { error: `${flag} can be at most ${option.maxLength} characters.` };
  return { value };
}
