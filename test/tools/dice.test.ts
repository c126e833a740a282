import { describe, expect, it } from 'vitest';
import { pickRandom, rollDice } from '../../src/tools/dice.ts';

/** A fake random source returning the given values in turn (each below `max`). */
function sequence(...values: number[]): (max: number) => number {
  return (max) => {
    const value = values.shift()!;
    expect(value).toBeLessThan(max);
    return value;
  };
}

describe('rollDice', () => {
  it('rolls each die from 1 to its sides and adds the modifier', () => {
    const roll = rollDice('2d6+1', sequence(0, 5));
    expect(roll.groups).toEqual([{ notation: '2d6', sign: 1, rolls: [1, 6] }]);
    expect(roll.total).toBe(8);
  });

  it('reads d20, several groups, subtraction and spaces', () => {
    const roll = rollDice(' d20 + 3d8 - 1d4 - 2 ', sequence(19, 0, 1, 2, 3));
    expect(roll.groups.map((g) => g.rolls)).toEqual([[20], [1, 2, 3], [4]]);
    expect(roll.total).toBe(20 + 6 - 4 - 2);
  });

  it('stays within range with the real random source', () => {
    for (let i = 0; i < 200; i += 1) {
      const { total } = rollDice('3d6');
      expect(total).toBeGreaterThanOrEqual(3);
      expect(total).toBeLessThanOrEqual(18);
    }
  });

  it.each([
    ['2x6', /not dice notation/],
    ['5', /no dice/],
    ['0d6', /at least one/],
    ['1d1', /2 to 1000 sides/],
    ['1d1001', /2 to 1000 sides/],
    ['101d6', /at most 100 dice/],
    ['60d6+60d6', /at most 100 dice/],
    ['99999999999999d6', /at most 100 dice/],
  ])('refuses %s', (notation, reason) => {
    expect(() => rollDice(notation)).toThrow(reason);
  });
});

describe('pickRandom', () => {
  it('picks distinct options', () => {
    expect(pickRandom(['a', 'b', 'c'], 2, sequence(2, 0))).toEqual(['c', 'a']);
    expect(new Set(pickRandom(['a', 'b', 'c', 'd'], 4))).toEqual(new Set(['a', 'b', 'c', 'd']));
  });

  it('refuses an empty list or a count it cannot meet', () => {
    expect(() => pickRandom([])).toThrow(/at least one option/);
    expect(() => pickRandom(['a'], 2)).toThrow(/1 to 1/);
  });
});
