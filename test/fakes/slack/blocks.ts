/**
 * The parts of Block Kit validation a chat bot meets: message-level limits and the common block types.
 * Refusals carry Slack's error name and, like Slack, "[ERROR] … [json-pointer:…]" lines in
 * response_metadata.messages.
 */

export const MAX_TEXT = 40_000;
export const MAX_MARKDOWN_TEXT = 12_000;
export const MAX_BLOCKS = 50;
export const MAX_ATTACHMENTS = 100;

export interface ApiFailure {
  error: string;
  messages?: string[];
}

const KNOWN_BLOCKS = new Set([
  'actions',
  'context',
  'context_actions',
  'divider',
  'file',
  'header',
  'image',
  'input',
  'markdown',
  'plan',
  'rich_text',
  'section',
  'table',
  'task_card',
  'video',
]);

/** Reads a structured argument that form-encoded calls send as a JSON string. */
export function jsonArg(value: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof value !== 'string') return { ok: true, value };
  try {
    return { ok: true, value: JSON.parse(value) };
  } catch {
    return { ok: false };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkTextObject(value: unknown, pointer: string, max: number, kinds: string[], errors: string[]): void {
  if (!isRecord(value)) {
    errors.push(`[ERROR] expected object [json-pointer:${pointer}]`);
    return;
  }
  if (typeof value.type !== 'string' || !kinds.includes(value.type)) {
    errors.push(`[ERROR] must be one of ${kinds.map((k) => `"${k}"`).join(', ')} [json-pointer:${pointer}/type]`);
  }
  if (typeof value.text !== 'string') {
    errors.push(`[ERROR] missing required field: text [json-pointer:${pointer}]`);
  } else if (value.text.length === 0) {
    errors.push(`[ERROR] must be more than 0 characters [json-pointer:${pointer}/text]`);
  } else if (value.text.length > max) {
    errors.push(`[ERROR] must be less than ${max + 1} characters [json-pointer:${pointer}/text]`);
  }
}

function checkActionId(element: Record<string, unknown>, pointer: string, ids: Set<string>, errors: string[]): void {
  if (element.action_id === undefined) return;
  if (typeof element.action_id !== 'string' || element.action_id.length > 255) {
    errors.push(`[ERROR] must be less than 256 characters [json-pointer:${pointer}/action_id]`);
  } else if (ids.has(element.action_id)) {
    errors.push(`[ERROR] duplicate action_id: ${element.action_id} [json-pointer:${pointer}/action_id]`);
  } else ids.add(element.action_id);
}

function checkValue(value: unknown, pointer: string, errors: string[], required: boolean): void {
  if (value === undefined && !required) return;
  if (typeof value !== 'string') errors.push(`[ERROR] missing required field: value [json-pointer:${pointer}]`);
  else if (value.length > 2000) errors.push(`[ERROR] must be less than 2001 characters [json-pointer:${pointer}/value]`);
}

/** Buttons in an actions block: plain_text labels up to 75 characters, values up to 2000, unique action_ids. */
function checkActionElements(elements: unknown[], pointer: string, errors: string[]): void {
  const ids = new Set<string>();
  elements.forEach((element, i) => {
    const at = `${pointer}/elements/${i}`;
    if (!isRecord(element)) return void errors.push(`[ERROR] expected object [json-pointer:${at}]`);
    checkActionId(element, at, ids, errors);
    if (element.type !== 'button') return;
    checkTextObject(element.text, `${at}/text`, 75, ['plain_text'], errors);
    checkValue(element.value, at, errors, false);
    if (element.style !== undefined && element.style !== 'primary' && element.style !== 'danger') {
      errors.push(`[ERROR] must be one of "primary", "danger" [json-pointer:${at}/style]`);
    }
  });
}

/** A context_actions block: up to 5 feedback_buttons or icon_button elements. */
function checkContextActions(block: Record<string, unknown>, pointer: string, errors: string[]): void {
  if (!Array.isArray(block.elements)) return void errors.push(`[ERROR] missing required field: elements [json-pointer:${pointer}]`);
  if (block.elements.length === 0) return void errors.push(`[ERROR] must provide at least 1 items [json-pointer:${pointer}/elements]`);
  if (block.elements.length > 5) return void errors.push(`[ERROR] no more than 5 items allowed [json-pointer:${pointer}/elements]`);
  const ids = new Set<string>();
  block.elements.forEach((element, i) => {
    const at = `${pointer}/elements/${i}`;
    if (!isRecord(element)) return void errors.push(`[ERROR] expected object [json-pointer:${at}]`);
    checkActionId(element, at, ids, errors);
    if (element.type === 'feedback_buttons') {
      for (const side of ['positive_button', 'negative_button'] as const) {
        const button = element[side];
        if (!isRecord(button)) {
          errors.push(`[ERROR] missing required field: ${side} [json-pointer:${at}]`);
          continue;
        }
        checkTextObject(button.text, `${at}/${side}/text`, 75, ['plain_text'], errors);
        checkValue(button.value, `${at}/${side}`, errors, true);
        if (typeof button.accessibility_label === 'string' && button.accessibility_label.length > 75) {
          errors.push(`[ERROR] must be less than 76 characters [json-pointer:${at}/${side}/accessibility_label]`);
        }
      }
    } else if (element.type === 'icon_button') {
      checkTextObject(element.text, `${at}/text`, 75, ['plain_text'], errors);
      if (typeof element.icon !== 'string') errors.push(`[ERROR] missing required field: icon [json-pointer:${at}]`);
    } else {
      errors.push(`[ERROR] must be one of "feedback_buttons", "icon_button" [json-pointer:${at}/type]`);
    }
  });
}

function checkBlock(block: unknown, pointer: string, errors: string[], blockIds: Set<string>): void {
  if (!isRecord(block)) {
    errors.push(`[ERROR] expected object [json-pointer:${pointer}]`);
    return;
  }
  if (typeof block.type !== 'string') {
    errors.push(`[ERROR] missing required field: type [json-pointer:${pointer}]`);
    return;
  }
  if (!KNOWN_BLOCKS.has(block.type)) {
    errors.push(`[ERROR] unsupported type: ${block.type} [json-pointer:${pointer}/type]`);
    return;
  }
  if (block.block_id !== undefined) {
    if (typeof block.block_id !== 'string' || block.block_id.length > 255) {
      errors.push(`[ERROR] must be less than 256 characters [json-pointer:${pointer}/block_id]`);
    } else if (blockIds.has(block.block_id)) {
      errors.push(`[ERROR] duplicate block_id: ${block.block_id} [json-pointer:${pointer}/block_id]`);
    } else {
      blockIds.add(block.block_id);
    }
  }
  switch (block.type) {
    case 'section': {
      if (block.text === undefined && block.fields === undefined) {
        errors.push(`[ERROR] must provide either text or fields [json-pointer:${pointer}]`);
      }
      if (block.text !== undefined) checkTextObject(block.text, `${pointer}/text`, 3000, ['plain_text', 'mrkdwn'], errors);
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields)) errors.push(`[ERROR] expected array [json-pointer:${pointer}/fields]`);
        else {
          if (block.fields.length > 10) errors.push(`[ERROR] no more than 10 items allowed [json-pointer:${pointer}/fields]`);
          block.fields.forEach((f, i) => checkTextObject(f, `${pointer}/fields/${i}`, 2000, ['plain_text', 'mrkdwn'], errors));
        }
      }
      break;
    }
    case 'header':
      checkTextObject(block.text, `${pointer}/text`, 150, ['plain_text'], errors);
      break;
    case 'context': {
      if (!Array.isArray(block.elements)) {
        errors.push(`[ERROR] missing required field: elements [json-pointer:${pointer}]`);
      } else if (block.elements.length === 0) {
        errors.push(`[ERROR] must provide at least 1 items [json-pointer:${pointer}/elements]`);
      } else if (block.elements.length > 10) {
        errors.push(`[ERROR] no more than 10 items allowed [json-pointer:${pointer}/elements]`);
      } else {
        block.elements.forEach((element, i) => {
          if (isRecord(element) && element.type === 'image') return;
          checkTextObject(element, `${pointer}/elements/${i}`, 3000, ['plain_text', 'mrkdwn'], errors);
        });
      }
      break;
    }
    case 'actions':
      if (!Array.isArray(block.elements)) errors.push(`[ERROR] missing required field: elements [json-pointer:${pointer}]`);
      else if (block.elements.length > 25) errors.push(`[ERROR] no more than 25 items allowed [json-pointer:${pointer}/elements]`);
      else checkActionElements(block.elements, pointer, errors);
      break;
    case 'context_actions':
      checkContextActions(block, pointer, errors);
      break;
    case 'image':
      if (typeof block.alt_text !== 'string') errors.push(`[ERROR] missing required field: alt_text [json-pointer:${pointer}]`);
      else if (block.alt_text.length > 2000) errors.push(`[ERROR] must be less than 2001 characters [json-pointer:${pointer}/alt_text]`);
      if (block.image_url === undefined && block.slack_file === undefined) {
        errors.push(`[ERROR] must provide either image_url or slack_file [json-pointer:${pointer}]`);
      }
      break;
    case 'markdown':
      if (typeof block.text !== 'string') errors.push(`[ERROR] missing required field: text [json-pointer:${pointer}]`);
      else if (block.text.length > MAX_MARKDOWN_TEXT) {
        errors.push(`[ERROR] must be less than ${MAX_MARKDOWN_TEXT + 1} characters [json-pointer:${pointer}/text]`);
      }
      break;
    case 'rich_text':
      if (!Array.isArray(block.elements)) errors.push(`[ERROR] missing required field: elements [json-pointer:${pointer}]`);
      break;
    default:
      break;
  }
}

/** Validates a `blocks` argument (a message's: 50 at most; a view's: 100); returns the parsed array or Slack's refusal. */
export function parseBlocks(raw: unknown, maxBlocks = MAX_BLOCKS): { blocks: unknown[] } | ApiFailure {
  const parsed = jsonArg(raw);
  if (!parsed.ok || !Array.isArray(parsed.value)) return { error: 'invalid_blocks_format' };
  const blocks = parsed.value;
  if (blocks.length > maxBlocks) {
    return { error: 'invalid_blocks', messages: [`[ERROR] no more than ${maxBlocks} items allowed [json-pointer:/blocks]`] };
  }
  const errors: string[] = [];
  const blockIds = new Set<string>();
  blocks.forEach((block, i) => checkBlock(block, `/blocks/${i}`, errors, blockIds));
  const markdownTotal = blocks.reduce<number>(
    (sum, b) => sum + (isRecord(b) && b.type === 'markdown' && typeof b.text === 'string' ? b.text.length : 0),
    0,
  );
  if (markdownTotal > MAX_MARKDOWN_TEXT) {
    errors.push(`[ERROR] markdown blocks must not exceed ${MAX_MARKDOWN_TEXT} characters in total [json-pointer:/blocks]`);
  }
  if (errors.length > 0) return { error: 'invalid_blocks', messages: errors };
  return { blocks };
}

export interface MessageContent {
  text: string;
  blocks?: unknown[];
  attachments?: unknown[];
}

/**
 * The content rules chat.postMessage and chat.update share: something to show, text within 40,000 characters,
 * markdown_text within 12,000, valid blocks, at most 100 attachments.
 */
export function parseMessageContent(args: Record<string, unknown>): MessageContent | ApiFailure {
  const text = args.text === undefined ? undefined : String(args.text);
  const markdownText = args.markdown_text === undefined ? undefined : String(args.markdown_text);
  if (text !== undefined && text.length > MAX_TEXT) return { error: 'msg_too_long' };
  if (markdownText !== undefined && markdownText.length > MAX_MARKDOWN_TEXT) return { error: 'msg_too_long' };
  const content: MessageContent = { text: text ?? markdownText ?? '' };
  if (args.blocks !== undefined && args.blocks !== '') {
    const blocks = parseBlocks(args.blocks);
    if ('error' in blocks) return blocks;
    content.blocks = blocks.blocks;
  }
  if (args.attachments !== undefined && args.attachments !== '') {
    const attachments = jsonArg(args.attachments);
    if (!attachments.ok || !Array.isArray(attachments.value)) return { error: 'invalid_attachments' };
    if (attachments.value.length > MAX_ATTACHMENTS) return { error: 'too_many_attachments' };
    content.attachments = attachments.value;
  }
  const hasSomething =
    (text !== undefined && text.trim() !== '') ||
    (markdownText !== undefined && markdownText.trim() !== '') ||
    (content.blocks !== undefined && content.blocks.length > 0) ||
    (content.attachments !== undefined && content.attachments.length > 0);
  if (!hasSomething) return { error: 'no_text' };
  return content;
}
