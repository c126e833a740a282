import { stringOption, type CommandDefinition } from './command.ts';
import { commandKey } from './incoming.ts';

const NOT_ALLOWED =
  'Personas per conversation are off here. An administrator can allow them with `/settings member_personas:on` (for this channel or the whole server).';

/** A member's own persona for the conversation they are in (this thread, DM or channel), where admins allow it. */
export const persona: CommandDefinition = {
  name: 'persona',
  description: 'Give Herald a persona in this conversation',
  ephemeral: true,
  options: [],
  subcommands: [
    {
      name: 'set',
      description: 'Who Herald is in this conversation (its name, role, tone)',
      options: [{ name: 'text', description: 'e.g. "You are a patient chemistry tutor."', type: 'string', required: true, maxLength: 1000 }],
    },
    { name: 'clear', description: 'Back to the persona of this channel or server', options: [] },
  ],
  async run(ctx, { engine }) {
    const text = ctx.subcommand === 'set' ? (stringOption(ctx, 'text') ?? '') : null;
    try {
      if (!(await engine.setConversationPersona(commandKey(ctx), text))) return ctx.reply(NOT_ALLOWED, { ephemeral: true });
    } catch (error) {
      if (error instanceof RangeError) return ctx.reply(error.message, { ephemeral: true });
      throw error;
    }
    await ctx.reply(
      text === null
        ? 'Persona cleared: Herald is itself again in this conversation.'
        : 'Saved. Herald takes this persona in this conversation from the next message on.',
      { ephemeral: true },
    );
  },
};
