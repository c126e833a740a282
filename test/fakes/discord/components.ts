import type { FormErrors } from './errors.ts';
import type { InteractionRecord, Json } from './records.ts';
import type { World } from './world.ts';
import { clickComponent } from './interactions.ts';

const ACTION_ROW = 1;
const BUTTON = 2;
const LINK_STYLE = 5;
const PREMIUM_STYLE = 6;

type ErrorPath = (string | number)[];

/**
 * The message components of a message without the IS_COMPONENTS_V2 flag, as Discord's OpenAPI describes them: at
 * most 5 action rows of 1–5 components each; a button has a style 1–6 and a label of at most 80 characters, and a
 * custom_id of 1–100 characters unless it is a link (a url instead) or premium button; custom_ids are unique in a
 * message. Select menus are passed through unchecked.
 */
export function validateActionRows(components: Json[], at: (...path: ErrorPath) => ErrorPath, errors: FormErrors): void {
  if (components.length > 5) errors.maxLength(at('components'), 5);
  const customIds = new Set<string>();
  components.forEach((row, r) => {
    const rowAt = (...path: ErrorPath) => at('components', r, ...path);
    if (row.type !== ACTION_ROW) {
      errors.add(rowAt('type'), 'COMPONENT_LAYOUT_INVALID', 'Only action rows may be at the top level of a message without IS_COMPONENTS_V2.');
      return;
    }
    const children = Array.isArray(row.components) ? (row.components as Json[]) : [];
    if (children.length === 0) errors.add(rowAt('components'), 'BASE_TYPE_MIN_LENGTH', 'Must be 1 or more in length.');
    if (children.length > 5) errors.maxLength(rowAt('components'), 5);
    children.forEach((child, c) => {
      if (child.type !== BUTTON) return;
      validateButton(child, (...path) => rowAt('components', c, ...path), errors, customIds);
    });
  });
}

function validateButton(button: Json, at: (...path: ErrorPath) => ErrorPath, errors: FormErrors, customIds: Set<string>): void {
  const style = button.style;
  if (typeof style !== 'number' || !Number.isInteger(style) || style < 1 || style > 6) {
    errors.add(at('style'), 'BASE_TYPE_CHOICES', `Value must be one of {1, 2, 3, 4, 5, 6}.`);
    return;
  }
  if (typeof button.label === 'string' && button.label.length > 80) errors.maxLength(at('label'), 80);
  if (style === LINK_STYLE) {
    if (typeof button.url !== 'string' || button.url === '') errors.required(at('url'));
    return;
  }
  if (style === PREMIUM_STYLE) return;
  const customId = button.custom_id;
  if (typeof customId !== 'string' || customId === '') {
    errors.required(at('custom_id'));
    return;
  }
  if (customId.length > 100) errors.maxLength(at('custom_id'), 100);
  if (customIds.has(customId)) errors.add(at('custom_id'), 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
  customIds.add(customId);
}

/** A button on a message, found by its label (or custom_id), as a user sees it. */
export function buttonOn(message: { components: Json[] }, labelOrId: string): Json | undefined {
  for (const row of message.components) {
    for (const child of (row.components as Json[] | undefined) ?? []) {
      if (child.type === BUTTON && (child.label === labelOrId || child.custom_id === labelOrId)) return child;
    }
  }
  return undefined;
}

export interface PressButtonInput {
  messageId: string;
  /** The button's label as shown, or its custom_id. */
  button: string;
  userId: string;
}

/**
 * A user presses a button: a MESSAGE_COMPONENT interaction with the member's permissions in the channel (a DM's
 * from its user). A disabled button cannot be pressed, as in Discord's client.
 */
export function pressButton(world: World, input: PressButtonInput): InteractionRecord {
  const message = world.store.messages.get(input.messageId);
  if (!message || message.deleted) throw new Error(`fake discord: no message ${input.messageId}`);
  const button = buttonOn(message, input.button);
  if (!button || typeof button.custom_id !== 'string') throw new Error(`fake discord: message has no button "${input.button}"`);
  if (button.disabled === true) throw new Error(`fake discord: button "${input.button}" is disabled`);
  return clickComponent(world, { messageId: message.id, customId: button.custom_id, userId: input.userId });
}
