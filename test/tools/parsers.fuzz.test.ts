import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CalculatorError, evaluate, MAX_EXPRESSION_LENGTH } from '../../src/tools/calculator.ts';
import { MAX_DICE, rollDice } from '../../src/tools/dice.ts';

/** Arithmetic as the grammar allows it, nested to any depth, so evaluation and not only tokenizing is exercised. */
const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => String(Math.abs(n))),
      fc.constantFrom('pi', 'e', '0', '1e308', '.5'),
    ),
    fc.tuple(tie('expr'), fc.constantFrom('+', '-', '*', '/', '%', '^', '**'), tie('expr')).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(fc.constantFrom('-', '+'), tie('expr')).map(([sign, e]) => `${sign}${e}`),
    tie('expr').map((e) => `(${e})`),
    fc
      .tuple(
        fc.constantFrom('sqrt', 'abs', 'round', 'floor', 'ceil', 'log', 'ln', 'sin', 'cos', 'tan', 'max', 'min', 'pow', 'nope'),
        fc.array(tie('expr'), { minLength: 0, maxLength: 3 }),
      )
      .map(([fn, args]) => `${fn}(${args.join(', ')})`),
  ),
})).expr;

const noise = fc
  .array(fc.oneof(fc.constantFrom('(', ')', '+', '-', '*', '^', ',', '.', 'e', '1', 'pi', ' ', 'sqrt'), fc.string({ maxLength: 4 })), {
    maxLength: 60,
  })
  .map((p) => p.join(''));

describe('calculator on any input', () => {
  it('returns a finite number or throws CalculatorError with a position inside the input', () => {
    fc.assert(
      fc.property(fc.oneof(expression, noise, fc.string({ maxLength: 80 })), (input) => {
        try {
          expect(Number.isFinite(evaluate(input))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(CalculatorError);
          const { position } = error as CalculatorError;
          expect(position).toBeGreaterThanOrEqual(0);
          expect(position).toBeLessThanOrEqual(Math.max(input.length, MAX_EXPRESSION_LENGTH));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses deep nesting and long input quickly, without overflowing the stack', () => {
    for (const input of ['('.repeat(999), `${'-'.repeat(999)}1`, `${'2^'.repeat(499)}2`, 'sqrt('.repeat(199), '1+'.repeat(5000)]) {
      const started = performance.now();
      expect(() => evaluate(input)).toThrow(CalculatorError);
      expect(performance.now() - started).toBeLessThan(200);
    }
  });
});

describe('dice on any input', () => {
  const notation = fc
    .array(fc.oneof(fc.constantFrom('d', 'd6', '2d20', '+', '-', ' ', '0', '9', '100d2', '1001', 'D'), fc.string({ maxLength: 3 })), {
      maxLength: 20,
    })
    .map((p) => p.join(''));

  it('rolls within the dice it was given, or throws RangeError', () => {
    fc.assert(
      fc.property(notation, (input) => {
        try {
          const roll = rollDice(input);
          const dice = roll.groups.flatMap((g) => g.rolls);
          expect(dice.length).toBeGreaterThan(0);
          expect(dice.length).toBeLessThanOrEqual(MAX_DICE);
          for (const group of roll.groups) {
            const sides = Number(/d(\d+)$/.exec(group.notation)![1]);
            for (const r of group.rolls) expect(r >= 1 && r <= sides).toBe(true);
          }
          expect(roll.total).toBe(roll.groups.reduce((sum, g) => sum + g.sign * g.rolls.reduce((a, b) => a + b, 0), roll.modifier));
        } catch (error) {
          expect(error).toBeInstanceOf(RangeError);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses a huge notation quickly', () => {
    for (const input of [`${'1d6+'.repeat(50_000)}1`, '9'.repeat(100_000), `${'+1'.repeat(100_000)}x`]) {
      const started = performance.now();
      expect(() => rollDice(input)).toThrow(RangeError);
      expect(performance.now() - started).toBeLessThan(500);
    }
  });
});
