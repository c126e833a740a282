import { ComponentType, TextInputStyle, type APIModalInteractionResponseCallbackData, type ModalSubmitInteraction } from 'discord.js';
import type { MessageActionDefinition } from '../../commands/message-action.ts';

const PREFIX = 'herald:action';
const INPUT_ID = 'input';
const PUBLIC_ID = 'public';

/** What a modal's custom_id carries back on submit: which action, on which message (any instance can answer). */
export interface ModalTarget {
  actionId: string;
  messageId: string;
}

/** The modal asking an action's prompt, its answer ephemeral unless the presser ticks "post for everyone". */
export function actionModal(action: MessageActionDefinition, messageId: string): APIModalInteractionResponseCallbackData {
  const prompt = action.prompt!;
  return {
    custom_id: `${PREFIX}:${action.id}:${messageId}`,
    title: prompt.title,
    components: [
      {
        type: ComponentType.Label,
        label: prompt.label,
        component: {
          type: ComponentType.TextInput,
          custom_id: INPUT_ID,
          style: TextInputStyle.Paragraph,
          required: true,
          max_length: prompt.maxLength,
          ...(prompt.placeholder !== undefined && { placeholder: prompt.placeholder }),
        },
      },
      ...(prompt.offerPublic
        ? [
            {
              type: ComponentType.Label as const,
              label: 'Post the answer for everyone',
              description: 'Otherwise only you see it.',
              component: { type: ComponentType.Checkbox as const, custom_id: PUBLIC_ID },
            },
          ]
        : []),
    ],
  };
}

/** The action and message a submitted modal is for; undefined for a modal that is not an action's. */
export function modalTarget(customId: string): ModalTarget | undefined {
  const match = new RegExp(String.raw`^${PREFIX}:([a-z_]+):(\d{17,20})$`).exec(customId);
  return match ? { actionId: match[1]!, messageId: match[2]! } : undefined;
}

/** What the presser typed, and whether they asked for the answer to be public. */
export function modalAnswers(interaction: ModalSubmitInteraction): { input: string; public: boolean } {
  const fields = interaction.fields;
  return {
    input: fields.getTextInputValue(INPUT_ID),
    public: fields.fields.has(PUBLIC_ID) && fields.getCheckbox(PUBLIC_ID),
  };
}
