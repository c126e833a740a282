import { CalculatorError, calculatorNames, evaluate, formatNumber, MAX_EXPRESSION_LENGTH } from './calculator.ts';
import { defineTool } from './types.ts';

export const calculatorTool = defineTool<{ expression: string }>({
  name: 'calculate',
  description:
    `Evaluates an arithmetic expression exactly, for any math beyond trivial mental arithmetic. ` +
    `Operators: + - * / % ^ and parentheses; functions: ${calculatorNames.functions.join(', ')} ` +
    `(log is base 10, log(x, b) base b; angles in radians); constants: pi, e.`,
  parameters: {
    type: 'object',
    properties: { expression: { type: 'string', description: `e.g. "(3 + 4)^2 / sqrt(2)"; at most ${MAX_EXPRESSION_LENGTH} characters` } },
    required: ['expression'],
  },
  handler({ expression }) {
    try {
      return `${expression.trim()} = ${formatNumber(evaluate(expression))}`;
    } catch (error) {
      if (!(error instanceof CalculatorError)) throw error;
      throw new Error(`cannot evaluate "${expression}": ${error.message} (at character ${error.position + 1})`);
    }
  },
});
