import { describe, expect, it } from 'vitest';
import { CalculatorError, evaluate, formatNumber } from '../../src/tools/calculator.ts';

describe('calculator', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 - 4 - 3', 3],
    ['2 ^ 3 ^ 2', 512],
    ['2 ** 10', 1024],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -1', 0.5],
    ['--3', 3],
    ['-(4 - 6) * +2', 4],
    ['17 % 5', 2],
    ['7 / 2', 3.5],
    ['.5 + 1.25e2', 125.5],
    ['sqrt(16) + abs(-3)', 7],
    ['round(2.5) + floor(2.9) + ceil(2.1)', 3 + 2 + 3],
    ['round(3.14159, 2)', 3.14],
    ['min(4, 2, 8) + max(1, 9)', 11],
    ['log(1000)', 3],
    ['log(8, 2)', 3],
    ['ln(e)', 1],
    ['sin(pi / 2) + cos(0) + tan(0)', 2],
    ['PI * 2', Math.PI * 2],
    ['6 × 7 ÷ 2', 21],
  ])('%s = %d', (expression, expected) => {
    expect(evaluate(expression)).toBeCloseTo(expected, 10);
  });

  it('shows results the way people write them', () => {
    expect(formatNumber(evaluate('0.1 + 0.2'))).toBe('0.3');
    expect(formatNumber(evaluate('-0 * 5'))).toBe('0');
    expect(formatNumber(evaluate('1 / 3'))).toBe('0.333333333333');
  });

  it.each([
    ['1 / 0', /division by zero/],
    ['5 % 0', /modulo by zero/],
    ['sqrt(-1)', /negative/],
    ['ln(0)', /above 0/],
    ['(-8) ^ (1/3)', /fractional power/],
    ['10 ^ 400', /too large/],
    ['1e308 * 10 - 1e308 * 10', /not a number/],
    ['2 +', /unexpected end/],
    ['(1 + 2', /expected "\)"/],
    ['1 2', /unexpected "2"/],
    ['foo(1)', /unknown name "foo"/],
    ['sqrt 4', /needs parentheses/],
    ['min()', /unexpected "\)"/],
    ['round(1, 2, 3)', /takes 1 to 2 arguments/],
    ['round(1, 0.5)', /whole digits/],
  ])('refuses %s with a reason', (expression, reason) => {
    expect(() => evaluate(expression)).toThrow(reason);
  });

  it.each([
    'process.exit(1)',
    'constructor',
    '__proto__',
    'toString()',
    'hasOwnProperty(1)',
    'this',
    'globalThis',
    'require("fs")',
    'import("fs")',
    '1; process.exit()',
    'x = 1',
    '`${1}`',
    "'1' + 1",
    '[1, 2]',
    '{}',
    'a => a',
    'eval("1")',
    'Function("return 1")()',
    '1 && 2',
    '1 | 2',
    '1 .toString',
  ])('never runs code: %s is rejected', (expression) => {
    expect(() => evaluate(expression)).toThrow(CalculatorError);
  });

  it('rejects absurd nesting and length instead of overflowing the stack', () => {
    expect(() => evaluate(`${'('.repeat(400)}1${')'.repeat(400)}`)).toThrow(/nested more than 64/);
    expect(() => evaluate(`${'-'.repeat(900)}1`)).toThrow(/nested more than 64/);
    expect(() => evaluate(`${'2^'.repeat(400)}2`)).toThrow(/nested more than 64|too large/);
    expect(() => evaluate(`${'1+'.repeat(600)}1`)).toThrow(/longer than 1000/);
    expect(evaluate(`${'('.repeat(60)}1${')'.repeat(60)}`)).toBe(1);
  });

  it('points at the character where the problem is', () => {
    try {
      evaluate('1 + 2 $ 3');
      expect.unreachable();
    } catch (error) {
      expect((error as CalculatorError).position).toBe(6);
    }
  });
});
