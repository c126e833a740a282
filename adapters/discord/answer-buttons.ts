import { ButtonStyle, ComponentType, type APIActionRowComponent, type APIButtonComponentWithCustomId } from 'discord.js';
import type { AnswerAction, AnswerControls } from '../../src/platform/platform.ts';

/** `herald:<action>:<question message id>`, well within Discord's 100 characters. */
const PREFIX = 'herald:';
const ACTIONS: readonly AnswerAction[] = ['stop', 'regenerate', 'continue', 'previous', 'next'];

export type AnswerRow = APIActionRowComponent<APIButtonComponentWithCustomId>;

function button(
  action: string,
  questionKey: string,
  label: string,
  style: APIButtonComponentWithCustomId['style'],
  disabled = false,
): APIButtonComponentWithCustomId {
  return { type: ComponentType.Button, custom_id: `${PREFIX}${action}:${questionKey}`, label, style, ...(disabled && { disabled }) };
}

/** The buttons that show `controls` on an answer's message: one row, or none when there is nothing to press. */
export function answerButtons(questionKey: string, controls: AnswerControls): AnswerRow[] {
  const buttons: APIButtonComponentWithCustomId[] = [];
  if (controls.stop) buttons.push(button('stop', questionKey, 'Stop', ButtonStyle.Danger));
  const { version } = controls;
  if (version) {
    buttons.push(
      button('previous', questionKey, '◀', ButtonStyle.Secondary, version.shown <= 1),
      button('version', questionKey, `${version.shown}/${version.count}`, ButtonStyle.Secondary, true),
      button('next', questionKey, '▶', ButtonStyle.Secondary, version.shown >= version.count),
    );
  }
  if (controls.regenerate) buttons.push(button('regenerate', questionKey, 'Regenerate', ButtonStyle.Secondary));
  if (controls.continue) buttons.push(button('continue', questionKey, 'Continue', ButtonStyle.Primary));
  return buttons.length === 0 ? [] : [{ type: ComponentType.ActionRow, components: buttons }];
}

/** The press a button's custom_id stands for; undefined for a button that is not an answer's control. */
export function pressedButton(customId: string): { action: AnswerAction; questionKey: string } | undefined {
  if (!customId.startsWith(PREFIX)) return undefined;
  const [action, questionKey] = customId.slice(PREFIX.length).split(':');
  const known = ACTIONS.find((a) => a === action);
  return known && questionKey && /^\d{1,20}$/.test(questionKey) ? { action: known, questionKey } : undefined;
}
