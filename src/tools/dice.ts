import { randomInt } from 'node:crypto';

export const MAX_DICE = 100;
export const MAX_SIDES = 1000;

export interface DiceGroup {
  /** `2d6`, or `-1d4` for a subtracted group. */
  notation: string;
  sign: 1 | -1;
  rolls: number[];
}

export interface DiceRoll {
  notation: string;
  groups: DiceGroup[];
  modifier: number;
  total: number;
}

/** Rolls tabletop notation: terms like `2d6`, `d20`, `3d8+1d4-2`, joined by + or -. */
export function rollDice(notation: string, random: (max: number) => number = randomInt): DiceRoll {
  const compact = notation.replace(/\s+/g, '').toLowerCase();
  if (!/^[+-]?(\d*d\d+|\d+)([+-](\d*d\d+|\d+))*$/.test(compact)) {
    throw new RangeError(`"${notation}" is not dice notation; use e.g. 2d6, d20 or 3d8+2`);
  }
  const groups: DiceGroup[] = [];
  let modifier = 0;
  let diceCount = 0;
  for (const [, signText, term] of compact.matchAll(/([+-]?)([^+-]+)/g)) {
    const sign = signText === '-' ? -1 : 1;
    const dice = /^(\d*)d(\d+)$/.exec(term!);
    if (!dice) {
      modifier += sign * Number(term);
      continue;
    }
    const count = dice[1] === '' ? 1 : Number(dice[1]);
    const sides = Number(dice[2]);
    if (count < 1) throw new RangeError('roll at least one die');
    if (sides < 2 || sides > MAX_SIDES) throw new RangeError(`dice need 2 to ${MAX_SIDES} sides`);
    diceCount += count;
    if (diceCount > MAX_DICE) throw new RangeError(`at most ${MAX_DICE} dice per roll`);
    const rolls = Array.from({ length: count }, () => random(sides) + 1);
    groups.push({ notation: `${sign < 0 ? '-' : ''}${count}d${sides}`, sign, rolls });
  }
  if (groups.length === 0) throw new RangeError(`"${notation}" has no dice; use e.g. 2d6`);
  if (Math.abs(modifier) > 1_000_000) throw new RangeError('the modifier is too large');
  const total = groups.reduce((sum, g) => sum + g.sign * g.rolls.reduce((a, b) => a + b, 0), modifier);
  return { notation: compact, groups, modifier, total };
}

/** Picks `count` different options at random (order random too). */
export function pickRandom<T>(options: readonly T[], count = 1, random: (max: number) => number = randomInt): T[] {
  if (options.length === 0) throw new RangeError('give at least one option to pick from');
  if (!Number.isInteger(count) || count < 1 || count > options.length) {
    throw new RangeError(`can pick 1 to ${options.length} of these options, not ${count}`);
  }
  const pool = [...options];
  const picked: T[] = [];
  for (let i = 0; i < count; i += 1) picked.push(pool.splice(random(pool.length), 1)[0]!);
  return picked;
}
