import { HeraldError } from '../errors.ts';

/**
 * A small arithmetic evaluator for the `calculate` tool. It reads the expression with its own tokenizer and
 * recursive-descent parser and computes the value directly: no eval, no Function, no property lookup on
 * user-supplied names (functions and constants live in Maps), so an input can only ever be arithmetic.
 *
 * Grammar (lowest precedence first):
 *   expression := term (('+' | '-') term)*
 *   term       := unary (('*' | '/' | '%') unary)*
 *   unary      := ('-' | '+') unary | power
 *   power      := primary (('^' | '**') unary)?      right-associative; -2^2 = -4, 2^-1 = 0.5
 *   primary    := number | constant | function '(' expression (',' expression)* ')' | '(' expression ')'
 */

export class CalculatorError extends HeraldError {
  /** 0-based character position the problem was found at. */
  readonly position: number;

  constructor(message: string, position: number) {
    super(message, { code: 'bad_expression', kind: 'invalid_input' });
    this.position = position;
  }
}

export const MAX_EXPRESSION_LENGTH = 1000;
const MAX_DEPTH = 64;

type Token =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'name'; value: string; at: number }
  | { kind: 'op'; value: '+' | '-' | '*' | '/' | '%' | '^' | '(' | ')' | ','; at: number }
  | { kind: 'end'; at: number };

const constants = new Map<string, number>([
  ['pi', Math.PI],
  ['π', Math.PI],
  ['e', Math.E],
]);

interface MathFunction {
  min: number;
  max: number;
  apply(args: number[], at: number): number;
}

function unary(f: (x: number) => number): MathFunction {
  return { min: 1, max: 1, apply: ([x]) => f(x!) };
}

function positive(name: string, f: (x: number) => number): MathFunction {
  return {
    min: 1,
    max: 1,
    apply: ([x], at) => {
      if (!(x! > 0)) throw new CalculatorError(`${name} is only defined for numbers above 0`, at);
      return f(x!);
    },
  };
}

const functions = new Map<string, MathFunction>([
  [
    'sqrt',
    {
      min: 1,
      max: 1,
      apply: ([x], at) => {
        if (x! < 0) throw new CalculatorError('sqrt of a negative number is not a real number', at);
        return Math.sqrt(x!);
      },
    },
  ],
  ['abs', unary(Math.abs)],
  [
    'round',
    {
      min: 1,
      max: 2,
      apply: ([x, digits = 0], at) => {
        if (!Number.isInteger(digits) || digits < -15 || digits > 15) {
          throw new CalculatorError('round(x, digits) needs whole digits between -15 and 15', at);
        }
        const scale = 10 ** digits;
        return Math.round(x! * scale) / scale;
      },
    },
  ],
  ['floor', unary(Math.floor)],
  ['ceil', unary(Math.ceil)],
  ['min', { min: 1, max: 100, apply: (args) => Math.min(...args) }],
  ['max', { min: 1, max: 100, apply: (args) => Math.max(...args) }],
  [
    'log',
    {
      min: 1,
      max: 2,
      apply: ([x, base], at) => {
        if (!(x! > 0)) throw new CalculatorError('log is only defined for numbers above 0', at);
        if (base === undefined) return Math.log10(x!);
        if (!(base > 0) || base === 1) throw new CalculatorError('log base must be above 0 and not 1', at);
        return Math.log(x!) / Math.log(base);
      },
    },
  ],
  ['ln', positive('ln', Math.log)],
  ['sin', unary(Math.sin)],
  ['cos', unary(Math.cos)],
  ['tan', unary(Math.tan)],
]);

export const calculatorNames = { functions: [...functions.keys()], constants: ['pi', 'e'] };

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    const number = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(input.slice(i));
    if (number) {
      tokens.push({ kind: 'number', value: Number(number[0]), at: i });
      i += number[0].length;
      continue;
    }
    const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|π)/.exec(input.slice(i));
    if (name) {
      tokens.push({ kind: 'name', value: name[0].toLowerCase(), at: i });
      i += name[0].length;
      continue;
    }
    if (input.startsWith('**', i)) {
      tokens.push({ kind: 'op', value: '^', at: i });
      i += 2;
      continue;
    }
    const symbol = c === '×' ? '*' : c === '÷' ? '/' : c === '−' ? '-' : c;
    if ('+-*/%^(),'.includes(symbol)) {
      tokens.push({ kind: 'op', value: symbol as '+', at: i });
      i += 1;
      continue;
    }
    throw new CalculatorError(`unexpected character ${JSON.stringify(c)}`, i);
  }
  tokens.push({ kind: 'end', at: input.length });
  return tokens;
}

class Parser {
  readonly #tokens: Token[];
  #index = 0;
  #depth = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  parse(): number {
    const value = this.#expression();
    const next = this.#peek();
    if (next.kind !== 'end') throw new CalculatorError(`unexpected ${describe(next)}`, next.at);
    return value;
  }

  #peek(): Token {
    return this.#tokens[this.#index]!;
  }

  #next(): Token {
    return this.#tokens[this.#index++]!;
  }

  #isOp(...ops: string[]): boolean {
    const token = this.#peek();
    return token.kind === 'op' && ops.includes(token.value);
  }

  #expect(op: string): void {
    const token = this.#next();
    if (token.kind !== 'op' || token.value !== op) throw new CalculatorError(`expected "${op}" but found ${describe(token)}`, token.at);
  }

  #nested<T>(at: number, work: () => T): T {
    if (++this.#depth > MAX_DEPTH) throw new CalculatorError(`expression is nested more than ${MAX_DEPTH} levels deep`, at);
    try {
      return work();
    } finally {
      this.#depth -= 1;
    }
  }

  #expression(): number {
    let value = this.#term();
    while (this.#isOp('+', '-')) {
      const op = this.#next() as { value: string };
      const right = this.#term();
      value = op.value === '+' ? value + right : value - right;
    }
    return value;
  }

  #term(): number {
    let value = this.#unary();
    while (this.#isOp('*', '/', '%')) {
      const op = this.#next() as { value: string; at: number };
      const right = this.#unary();
      if (op.value === '*') value *= right;
      else {
        if (right === 0) throw new CalculatorError(op.value === '/' ? 'division by zero' : 'modulo by zero', op.at);
        value = op.value === '/' ? value / right : value % right;
      }
    }
    return value;
  }

  #unary(): number {
    if (this.#isOp('-', '+')) {
      const op = this.#next() as { value: string; at: number };
      const operand = this.#nested(op.at, () => this.#unary());
      return op.value === '-' ? -operand : operand;
    }
    return this.#power();
  }

  #power(): number {
    const base = this.#primary();
    if (!this.#isOp('^')) return base;
    const op = this.#next();
    const exponent = this.#nested(op.at, () => this.#unary());
    const value = base ** exponent;
    if (Number.isNaN(value)) throw new CalculatorError('a negative number to a fractional power is not a real number', op.at);
    return value;
  }

  #primary(): number {
    const token = this.#next();
    if (token.kind === 'number') return token.value;
    if (token.kind === 'op' && token.value === '(') {
      const value = this.#nested(token.at, () => this.#expression());
      this.#expect(')');
      return value;
    }
    if (token.kind === 'name') {
      const fn = functions.get(token.value);
      if (fn) return this.#call(token.value, fn, token.at);
      const constant = constants.get(token.value);
      if (constant !== undefined) return constant;
      throw new CalculatorError(`unknown name "${token.value}"`, token.at);
    }
    throw new CalculatorError(`unexpected ${describe(token)}`, token.at);
  }

  #call(name: string, fn: MathFunction, at: number): number {
    if (!this.#isOp('(')) throw new CalculatorError(`${name} needs parentheses, e.g. ${name}(2)`, at);
    this.#next();
    const args = this.#nested(at, () => {
      const list = [this.#expression()];
      while (this.#isOp(',')) {
        this.#next();
        list.push(this.#expression());
      }
      return list;
    });
    this.#expect(')');
    if (args.length < fn.min || args.length > fn.max) {
      const wanted = fn.min === fn.max ? `${fn.min}` : `${fn.min} to ${fn.max}`;
      throw new CalculatorError(`${name} takes ${wanted} argument${fn.max === 1 ? '' : 's'}, got ${args.length}`, at);
    }
    return fn.apply(args, at);
  }
}

function describe(token: Token): string {
  if (token.kind === 'end') return 'end of expression';
  return `"${token.value}"`;
}

/** Evaluates an arithmetic expression; throws CalculatorError with a position for anything else. */
export function evaluate(expression: string): number {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new CalculatorError(`expression is longer than ${MAX_EXPRESSION_LENGTH} characters`, MAX_EXPRESSION_LENGTH);
  }
  const value = new Parser(tokenize(expression)).parse();
  if (Number.isNaN(value)) throw new CalculatorError('the result is not a number (an infinity cancelled out)', 0);
  if (!Number.isFinite(value)) throw new CalculatorError('the result is too large to represent', 0);
  return value;
}

/** The value as people write it: 12 significant digits, so 0.1 + 0.2 shows as 0.3. */
export function formatNumber(value: number): string {
  const rounded = Number(value.toPrecision(12));
  return Object.is(rounded, -0) ? '0' : String(rounded);
}
