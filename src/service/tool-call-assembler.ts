import type { ToolCall } from './types.ts';

interface Fragment {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

/** Streamed tool calls come as fragments by index: id and name first, then arguments in pieces. */
export class ToolCallAssembler {
  readonly #calls: ToolCall[] = [];

  get size(): number {
    return this.#calls.length;
  }

  add(fragments: readonly Fragment[]): void {
    for (let i = 0; i < fragments.length; i++) {
      const f = fragments[i]!;
      const index = typeof f.index === 'number' ? f.index : i;
      let call = this.#calls[index];
      if (!call) {
        call = { id: '', type: 'function', function: { name: '', arguments: '' } };
        this.#calls[index] = call;
      }
      if (f.id && !call.id) call.id = f.id;
      if (f.function?.name && !call.function.name) call.function.name = f.function.name;
      if (typeof f.function?.arguments === 'string') call.function.arguments += f.function.arguments;
    }
  }

  start(index: number, id: string, name: string, args = ''): void {
    this.#calls[index] = { id, type: 'function', function: { name, arguments: args } };
  }

  appendArguments(index: number, text: string): void {
    const call = this.#calls[index];
    if (call) call.function.arguments += text;
  }

  /** The assembled calls, in index order; arguments `{}` when the model sent none. */
  take(): ToolCall[] {
    const out = this.#calls.filter((c): c is ToolCall => c !== undefined);
    for (const c of out) if (c.function.arguments.trim() === '') c.function.arguments = '{}';
    this.#calls.length = 0;
    return out;
  }
}
