import { FormErrors } from './errors.ts';
import type { Json } from './records.ts';

type Path = (string | number)[];

export interface ValidCommand {
  type: number;
  name: string;
  nameLocalizations: Json | null;
  description: string;
  descriptionLocalizations: Json | null;
  options: Json[];
  defaultMemberPermissions: string | null;
  nsfw: boolean;
  contexts: number[] | null;
  integrationTypes: number[];
}

const CHAT_NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const OPTION_TYPES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const SUBCOMMAND = 1;
const GROUP = 2;
const MAX_COMMAND_SIZE = 4000;

function checkName(value: unknown, path: Path, errors: FormErrors, chatInput: boolean): string {
  if (typeof value !== 'string' || value.length === 0) {
    errors.required(path);
    return '';
  }
  if (value.length > 32) errors.maxLength(path, 32);
  else if (chatInput && (!CHAT_NAME.test(value) || value !== value.toLowerCase())) {
    errors.add(path, 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
  }
  return value;
}

function checkDescription(value: unknown, path: Path, errors: FormErrors, required: boolean): string {
  if (value === undefined || value === null || value === '') {
    if (required) errors.required(path);
    return '';
  }
  if (typeof value !== 'string') {
    errors.add(path, 'BASE_TYPE_STRING', `Could not interpret "${String(value)}" as string.`);
    return '';
  }
  if (!required) errors.maxLength(path, 0);
  else if (value.length > 100) errors.maxLength(path, 100);
  return value;
}

/** Validates options at one nesting level; returns their character count toward the 4000 limit. */
function checkOptions(value: unknown, path: Path, errors: FormErrors, depth: number): { options: Json[]; size: number } {
  if (value === undefined || value === null) return { options: [], size: 0 };
  if (!Array.isArray(value)) {
    errors.add(path, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    return { options: [], size: 0 };
  }
  if (value.length > 25) errors.maxLength(path, 25);
  let size = 0;
  const names = new Set<string>();
  let sawOptional = false;
  const kinds = new Set<string>();
  const options = value.map((raw: unknown, i: number) => {
    const option = (raw ?? {}) as Json;
    const at = [...path, i];
    const type = option.type as number;
    if (!OPTION_TYPES.includes(type)) {
      errors.add([...at, 'type'], 'BASE_TYPE_CHOICES', `Value must be one of {${OPTION_TYPES.join(', ')}}.`);
    }
    const name = checkName(option.name, [...at, 'name'], errors, true);
    const description = checkDescription(option.description, [...at, 'description'], errors, true);
    size += name.length + description.length;
    if (names.has(name)) errors.add([...at, 'name'], 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', 'Option names must be unique');
    names.add(name);
    const nested = type === SUBCOMMAND || type === GROUP;
    kinds.add(nested ? 'sub' : 'value');
    if (nested) {
      if (type === GROUP && depth > 0) errors.add([...at, 'type'], 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', 'Sub-command groups cannot be nested');
      if (type === SUBCOMMAND && depth > 1)
        errors.add([...at, 'type'], 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', 'Sub-commands must be inside a group or the command');
      const inner = checkOptions(option.options, [...at, 'options'], errors, depth + 1);
      if (type === GROUP && inner.options.some((o) => o.type !== SUBCOMMAND)) {
        errors.add([...at, 'options'], 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID', 'Sub-command groups may only contain sub-commands');
      }
      size += inner.size;
      return { ...option, ...(inner.options.length ? { options: inner.options } : {}) };
    }
    if (option.required === true && sawOptional) {
      errors.add([...at, 'required'], 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID', 'Required options must be placed before non-required options');
    }
    if (option.required !== true) sawOptional = true;
    if (option.choices !== undefined && option.choices !== null) {
      if (![3, 4, 10].includes(type)) {
        errors.add(
          [...at, 'choices'],
          'APPLICATION_COMMAND_OPTION_CHOICES_INVALID',
          'Choices are only allowed for string, integer and number options',
        );
      } else if (!Array.isArray(option.choices)) {
        errors.add([...at, 'choices'], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
      } else {
        if (option.choices.length > 25) errors.maxLength([...at, 'choices'], 25);
        if (option.autocomplete === true) {
          errors.add([...at, 'autocomplete'], 'APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_CHOICES', 'Autocomplete cannot be used with choices');
        }
        option.choices.forEach((choice: Json, c: number) => {
          const choiceName = typeof choice?.name === 'string' ? choice.name : '';
          if (!choiceName) errors.required([...at, 'choices', c, 'name']);
          else if (choiceName.length > 100) errors.maxLength([...at, 'choices', c, 'name'], 100);
          const wantsString = type === 3;
          if (wantsString ? typeof choice?.value !== 'string' : typeof choice?.value !== 'number') {
            errors.add(
              [...at, 'choices', c, 'value'],
              wantsString ? 'BASE_TYPE_STRING' : 'NUMBER_TYPE_COERCE',
              'Value does not match the option type',
            );
          } else if (wantsString && (choice.value as string).length > 100) {
            errors.maxLength([...at, 'choices', c, 'value'], 100);
          }
          size += choiceName.length + String(choice?.value ?? '').length;
        });
      }
    }
    for (const key of ['min_length', 'max_length'] as const) {
      const bound = option[key];
      if (bound !== undefined && bound !== null && (!Number.isInteger(bound) || (bound as number) < 0 || (bound as number) > 6000)) {
        errors.add([...at, key], 'NUMBER_TYPE_MAX', 'int value should be between 0 and 6000.');
      }
    }
    return option;
  });
  if (kinds.size > 1) {
    errors.add(
      path,
      'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
      'Sub-command and sub-command group option types are mutually exclusive to all other types',
    );
  }
  return { options, size };
}

function intList(value: unknown, path: Path, allowed: number[], errors: FormErrors): number[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) {
    errors.add(path, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    return null;
  }
  value.forEach((v: unknown, i: number) => {
    if (!allowed.includes(v as number)) errors.add([...path, i], 'ENUM_TYPE_COERCE', `Value "${String(v)}" is not a valid enum value.`);
  });
  return value as number[];
}

export function validateCommand(body: unknown, path: Path, errors: FormErrors): ValidCommand {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    errors.add(path, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
    return {
      type: 1,
      name: '',
      nameLocalizations: null,
      description: '',
      descriptionLocalizations: null,
      options: [],
      defaultMemberPermissions: null,
      nsfw: false,
      contexts: null,
      integrationTypes: [0],
    };
  }
  const input = body as Json;
  const type = input.type === undefined || input.type === null ? 1 : (input.type as number);
  if (![1, 2, 3, 4].includes(type)) errors.add([...path, 'type'], 'ENUM_TYPE_COERCE', `Value "${String(type)}" is not a valid enum value.`);
  const chatInput = type === 1;
  const name = checkName(input.name, [...path, 'name'], errors, chatInput);
  const description = checkDescription(input.description, [...path, 'description'], errors, chatInput);
  let options: Json[] = [];
  let size = name.length + description.length;
  if (chatInput) {
    const checked = checkOptions(input.options, [...path, 'options'], errors, 0);
    options = checked.options;
    size += checked.size;
  } else if (Array.isArray(input.options) && input.options.length > 0) {
    errors.maxLength([...path, 'options'], 0);
  }
  if (size > MAX_COMMAND_SIZE) errors.add(path, 'APPLICATION_COMMAND_TOO_LARGE', `Command exceeds maximum size (${MAX_COMMAND_SIZE})`);
  const permissions = input.default_member_permissions;
  if (permissions !== undefined && permissions !== null && !/^\d+$/.test(String(permissions))) {
    errors.add([...path, 'default_member_permissions'], 'NUMBER_TYPE_COERCE', `Value "${String(permissions)}" is not snowflake.`);
  }
  return {
    type,
    name,
    nameLocalizations: (input.name_localizations as Json | undefined) ?? null,
    description,
    descriptionLocalizations: (input.description_localizations as Json | undefined) ?? null,
    options,
    defaultMemberPermissions: permissions === undefined || permissions === null ? null : String(permissions),
    nsfw: input.nsfw === true,
    contexts: intList(input.contexts, [...path, 'contexts'], [0, 1, 2], errors),
    integrationTypes: intList(input.integration_types, [...path, 'integration_types'], [0, 1], errors) ?? [0],
  };
}

/** Bulk overwrite body: at most 100 chat-input and 15 of each context-menu type, names unique per type. */
export function validateCommandList(body: unknown): ValidCommand[] {
  const errors = new FormErrors();
  if (!Array.isArray(body)) {
    errors.add([], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    errors.throwIfAny();
    return [];
  }
  const commands = body.map((item: unknown, i: number) => validateCommand(item, [i], errors));
  const seen = new Set<string>();
  const perType = new Map<number, number>();
  commands.forEach((command, i) => {
    const key = `${command.type}:${command.name}`;
    if (seen.has(key)) errors.add([i, 'name'], 'APPLICATION_COMMANDS_DUPLICATE_NAME', `Application command names must be unique`);
    seen.add(key);
    perType.set(command.type, (perType.get(command.type) ?? 0) + 1);
  });
  if ((perType.get(1) ?? 0) > 100) errors.maxLength([], 100);
  if ((perType.get(2) ?? 0) > 15 || (perType.get(3) ?? 0) > 15) {
    errors.add([], 'APPLICATION_COMMANDS_TOO_MANY_CONTEXT_MENU', 'Maximum number of context menu commands reached (15)');
  }
  errors.throwIfAny();
  return commands;
}
