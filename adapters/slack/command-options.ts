/**
 * Slack slash commands carry one line of text. Herald reads options from it as `--name=value`, `--flag` and
 * `--no-flag` (names from the command's definition, `-` or `_` alike); the rest of the text is the command's main
 * option, e.g. `/ask --search what happened today?` or `/say --voice=zh --style="slow down" 你好`.
 */
import type { CommandDefinition, CommandOption, OptionValue } from '../../commands/command.ts';

export type ParsedOptions = { options: Map<string, OptionValue> } | { error: string };

const FLAG = /(^|\s)--(no-)?([A-Za-z][\w-]*)(?:=(?:"([^"]*)"|“([^”]*)”|'([^']*)'|(\S+)))?(?=\s|$)/g;

/** The option the free text fills: the command's first text option, unless that one is a choice. */
export function mainOption(definition: CommandDefinition): CommandOption | undefined {
  const first = definition.options.find((o) => o.type === 'string');
  return first && !first.choices ? first : undefined;
}

export function usageLine(definition: CommandDefinition): string {
  const main = mainOption(definition);
  const parts = [`/${definition.name}`];
  if (main) parts.push(main.required ? `<${main.name}>` : `[${main.name}]`);
  for (const option of definition.options) {
    if (option === main || option.type === 'attachment') continue;
    const name = option.name.replace(/_/g, '-');
    if (option.type === 'boolean') parts.push(`[--${name} | --no-${name}]`);
    else if (option.choices) parts.push(`[--${name}=${option.choices.map((c) => c.value).join('|')}]`);
    else parts.push(`[--${name}=…]`);
  }
  return parts.join(' ');
}

export function parseCommandText(definition: CommandDefinition, text: string): ParsedOptions {
  const options = new Map<string, OptionValue>();
  const byName = new Map(definition.options.map((o) => [o.name.replace(/-/g, '_').toLowerCase(), o]));
  let problem: string | undefined;
  const rest = text.replace(FLAG, (whole, lead: string, negated: string | undefined, rawName: string, ...quoted: Array<string | undefined>) => {
    const option = byName.get(rawName.replace(/-/g, '_').toLowerCase());
    if (!option || option.type === 'attachment') return whole;
    const value = quoted.slice(0, 4).find((v) => v !== undefined);
    const parsed = optionValue(option, value, negated !== undefined);
    if ('error' in parsed) problem ??= parsed.error;
    else options.set(option.name, parsed.value);
    return lead;
  });
  if (problem) return { error: problem };
  const main = mainOption(definition);
  const free = rest.replace(/\s+/g, ' ').trim();
  if (main && free !== '') {
    if (main.maxLength !== undefined && free.length > main.maxLength) return { error: `The ${main.name} can be at most ${main.maxLength} characters.` };
    options.set(main.name, free);
  } else if (free !== '') {
    return { error: `/${definition.name} takes no text besides its options: ${usageLine(definition)}` };
  }
  const missing = definition.options.find((o) => o.required && o.type !== 'attachment' && !options.has(o.name));
  if (missing) return { error: `Please add the ${missing.name}: ${usageLine(definition)}` };
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
