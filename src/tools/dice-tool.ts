import { MAX_DICE, MAX_SIDES, pickRandom, rollDice } from './dice.ts';
import { defineTool } from './types.ts';

export const rollDiceTool = defineTool<{ notation: string }>({
  name: 'roll_dice',
  description: `Rolls dice in tabletop notation such as "2d6+1", "d20" or "3d8-1d4" (up to ${MAX_DICE} dice of up to ${MAX_SIDES} sides). Use it whenever the user asks to roll.`,
  parameters: {
    type: 'object',
    properties: { notation: { type: 'string', description: 'e.g. "2d6+1"' } },
    required: ['notation'],
  },
  handler({ notation }) {
    const roll = rollDice(notation);
    return {
      result: {
        notation: roll.notation,
        rolls: Object.fromEntries(roll.groups.map((g) => [g.notation, g.rolls])),
        modifier: roll.modifier,
        total: roll.total,
      },
    };
  },
});

export const pickRandomTool = defineTool<{ options: string[]; count?: number }>({
  name: 'pick_random',
  description: 'Picks one (or `count` different) options at random from a list, fairly. Use it to choose, draw lots or shuffle.',
  parameters: {
    type: 'object',
    properties: {
      options: { type: 'array', items: { type: 'string' }, description: 'the options to pick from' },
      count: { type: 'integer', description: 'how many different options to pick (default 1)' },
    },
    required: ['options'],
  },
  handler({ options, count }) {
    return { result: { picked: pickRandom(options, count ?? 1) } };
  },
});
