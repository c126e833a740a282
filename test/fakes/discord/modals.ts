import { FormErrors } from './errors.ts';
import { interactionContext, newToken, registerInteraction } from './interactions.ts';
import { restMessage } from './message-service.ts';
import type { InteractionRecord, Json } from './records.ts';
import { snowflake } from './snowflake.ts';
import type { World } from './world.ts';

type Path = (string | number)[];

const ComponentType = { ActionRow: 1, TextInput: 4, TextDisplay: 10, Label: 18, Checkbox: 23 } as const;
const MODAL_CALLBACK = 9;

/** What a user types or ticks in a modal, by component custom_id: text for text inputs, true/false for checkboxes. */
export type ModalValues = Record<string, string | boolean>;

export interface SubmitModalInput {
  /** The interaction that was answered with the modal. */
  interactionId: string;
  userId: string;
  values: ModalValues;
  locale?: string;
}

function checkString(value: unknown, path: Path, errors: FormErrors, limits: { min?: number; max: number; required?: boolean }): void {
  if (value === undefined || value === null) {
    if (limits.required) errors.required(path);
    return;
  }
  if (typeof value !== 'string') errors.add(path, 'BASE_TYPE_STRING', `Could not interpret "${String(value)}" as string.`);
  else if (limits.required && value.length < (limits.min ?? 1)) errors.required(path);
  else if (value.length > limits.max) errors.maxLength(path, limits.max);
}

function checkInteger(value: unknown, path: Path, errors: FormErrors, min: number, max: number): void {
  if (value === undefined || value === null) return;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    errors.add(path, 'NUMBER_TYPE_MAX', `int value should be between ${min} and ${max}.`);
  }
}

function checkTextInput(input: Json, path: Path, errors: FormErrors, inLabel: boolean): void {
  checkString(input.custom_id, [...path, 'custom_id'], errors, { max: 100, required: true });
  if (input.style !== 1 && input.style !== 2) errors.add([...path, 'style'], 'BASE_TYPE_CHOICES', 'Value must be one of {1, 2}.');
  // Inside a Label component the label is the Label's; an action row's text input needs its own.
  if (inLabel && input.label !== undefined && input.label !== null) {
    errors.add([...path, 'label'], 'COMPONENT_TEXT_INPUT_LABEL_NOT_ALLOWED', 'Text inputs inside a label component cannot have a label');
  }
  checkString(input.label, [...path, 'label'], errors, { max: 45, required: !inLabel });
  checkString(input.placeholder, [...path, 'placeholder'], errors, { max: 100 });
  checkString(input.value, [...path, 'value'], errors, { max: 4000 });
  checkInteger(input.min_length, [...path, 'min_length'], errors, 0, 4000);
  checkInteger(input.max_length, [...path, 'max_length'], errors, 1, 4000);
}

function checkLabelled(component: Json, path: Path, errors: FormErrors): void {
  if (component.type === ComponentType.TextInput) checkTextInput(component, path, errors, true);
  else if (component.type === ComponentType.Checkbox) {
    checkString(component.custom_id, [...path, 'custom_id'], errors, { max: 100, required: true });
    if (component.default !== undefined && component.default !== null && typeof component.default !== 'boolean') {
      errors.add([...path, 'default'], 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
    }
  } else {
    // Selects and file uploads are valid in a label too; Herald's fake takes only what it can submit.
    errors.add(
      [...path, 'type'],
      'UNION_TYPE_CHOICES',
      `Value of field "type" must be one of (${ComponentType.TextInput}, ${ComponentType.Checkbox}).`,
    );
  }
}

/** A modal response's data (callback type 9), as Discord validates it: title, custom_id and 1–40 top-level components. */
export function validateModal(data: unknown): void {
  const input = (data ?? {}) as Json;
  const errors = new FormErrors();
  checkString(input.custom_id, ['data', 'custom_id'], errors, { max: 100, required: true });
  checkString(input.title, ['data', 'title'], errors, { max: 45, required: true });
  const components = input.components;
  if (!Array.isArray(components) || components.length === 0) errors.required(['data', 'components']);
  else if (components.length > 40) errors.maxLength(['data', 'components'], 40);
  else {
    components.forEach((raw: unknown, i: number) => {
      const component = (raw ?? {}) as Json;
      const path = ['data', 'components', i];
      if (component.type === ComponentType.Label) {
        checkString(component.label, [...path, 'label'], errors, { max: 45, required: true });
        checkString(component.description, [...path, 'description'], errors, { max: 100 });
        if (!component.component) errors.required([...path, 'component']);
        else checkLabelled(component.component as Json, [...path, 'component'], errors);
      } else if (component.type === ComponentType.ActionRow) {
        const inputs = component.components;
        if (!Array.isArray(inputs) || inputs.length === 0) errors.required([...path, 'components']);
        else if (inputs.length > 5) errors.maxLength([...path, 'components'], 5);
        else inputs.forEach((item: Json, j: number) => checkTextInput(item ?? {}, [...path, 'components', j], errors, false));
      } else if (component.type === ComponentType.TextDisplay) {
        checkString(component.content, [...path, 'content'], errors, { max: 4000, required: true });
      } else {
        errors.add([...path, 'type'], 'UNION_TYPE_CHOICES', 'Value of field "type" must be one of (1, 10, 18).');
      }
    });
  }
  const ids = inputIds(Array.isArray(components) ? components : []);
  if (new Set(ids).size !== ids.length)
    errors.add(['data', 'components'], 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
  errors.throwIfAny();
}

function inputIds(components: Json[]): string[] {
  return components.flatMap((c) => {
    if (c?.type === ComponentType.Label) return [String((c.component as Json | undefined)?.custom_id)];
    if (c?.type === ComponentType.ActionRow) return ((c.components as Json[] | undefined) ?? []).map((i) => String(i?.custom_id));
    return [];
  });
}

/** What the user's client sends for one input: it refuses a form breaking the input's own rules, as Discord's does. */
function submitted(input: Json, values: ModalValues, id: number): Json {
  const customId = input.custom_id as string;
  const given = values[customId];
  if (input.type === ComponentType.Checkbox) {
    if (given !== undefined && typeof given !== 'boolean') throw new Error(`fake discord: checkbox "${customId}" takes true or false`);
    return { type: ComponentType.Checkbox, id, custom_id: customId, value: given ?? input.default === true };
  }
  if (given !== undefined && typeof given !== 'string') throw new Error(`fake discord: text input "${customId}" takes text`);
  const value = given ?? (input.value as string | undefined) ?? '';
  const required = input.required !== false;
  const min = (input.min_length as number | undefined) ?? 0;
  const max = (input.max_length as number | undefined) ?? 4000;
  if (required && value === '') throw new Error(`fake discord: "${customId}" is required; the client will not submit the form`);
  if (value !== '' && (value.length < min || value.length > max)) {
    throw new Error(`fake discord: "${customId}" takes ${min}–${max} characters; the client will not submit ${value.length}`);
  }
  return { type: ComponentType.TextInput, id, custom_id: customId, value };
}

/**
 * The user fills in and submits the modal an interaction was answered with: INTERACTION_CREATE of type 5 with the
 * modal's custom_id and, per top-level component, what was entered (Discord numbers components in order when the
 * app gave no ids). Only the user it was shown to can submit it.
 */
export function submitModal(world: World, input: SubmitModalInput): InteractionRecord {
  const source = world.store.interactions.get(input.interactionId);
  if (!source) throw new Error(`fake discord: no interaction ${input.interactionId}`);
  const shown = source.callbacks.findLast((c) => c.type === MODAL_CALLBACK && c.status >= 200 && c.status < 300);
  if (!shown?.data) throw new Error('fake discord: that interaction was not answered with a modal');
  if (input.userId !== source.userId) throw new Error('fake discord: a modal is shown only to the user who opened it');
  const modal = shown.data;
  const known = new Set(inputIds(modal.components as Json[]));
  for (const name of Object.keys(input.values)) if (!known.has(name)) throw new Error(`fake discord: the modal has no input "${name}"`);
  let nextId = 1;
  const components = (modal.components as Json[]).flatMap((component): Json[] => {
    const id = (component.id as number | undefined) ?? nextId++;
    if (component.type === ComponentType.Label) {
      const inner = component.component as Json;
      return [{ type: ComponentType.Label, id, component: submitted(inner, input.values, (inner.id as number | undefined) ?? nextId++) }];
    }
    if (component.type === ComponentType.ActionRow) {
      const inputs = (component.components as Json[]).map((item) => submitted(item, input.values, (item.id as number | undefined) ?? nextId++));
      return [{ type: ComponentType.ActionRow, id, components: inputs }];
    }
    return [{ type: component.type, id }];
  });
  const sourceMessage = source.sourceMessageId ? world.store.messages.get(source.sourceMessageId) : undefined;
  const id = snowflake();
  const token = newToken(id);
  const payload: Json = {
    ...interactionContext(world, input.userId, source.channelId, input.locale ?? (source.payload.locale as string)),
    id,
    token,
    type: 5,
    data: { custom_id: modal.custom_id, components },
    ...(sourceMessage ? { message: restMessage(world, sourceMessage) } : {}),
  };
  return registerInteraction(world, {
    id,
    token,
    type: 5,
    commandName: null,
    customId: modal.custom_id as string,
    guildId: source.guildId,
    channelId: source.channelId,
    userId: input.userId,
    payload,
    createdAt: Date.now(),
    sourceMessageId: source.sourceMessageId,
  });
}
