import { createHash } from 'node:crypto';

const MAX_NAME = 64;

/**
 * Names MCP tools for the service (`^[A-Za-z0-9_-]{1,64}$`) as `server__tool`, remembered per server and tool:
 * a name that had to change (a dot, a space, too long) or that is taken gets a short hash of the original, so two
 * tools never share a name and a name never changes while the process runs.
 */
export class ToolNames {
  readonly #names = new Set<string>();
  readonly #byOriginal = new Map<string, string>();
  readonly #taken: (name: string) => boolean;

  /** `taken`: whether a name is already used by something outside this table (a built-in tool). */
  constructor(taken: (name: string) => boolean = () => false) {
    this.#taken = taken;
  }

  nameOf(server: string, tool: string): string {
    const key = `${server}\u0000${tool}`;
    const known = this.#byOriginal.get(key);
    if (known) return known;
    const plain = `${server}__${tool}`;
    const cleaned = plain.replace(/[^A-Za-z0-9_-]/g, '_');
    let name = cleaned;
    if (cleaned !== plain || cleaned.length > MAX_NAME || this.#used(cleaned)) {
      const hash = createHash('sha256').update(key).digest('hex').slice(0, 8);
      name = `${cleaned.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
    }
    for (let n = 2; this.#used(name); n += 1) name = `${name.slice(0, MAX_NAME - String(n).length - 1)}_${n}`;
    this.#names.add(name);
    this.#byOriginal.set(key, name);
    return name;
  }

  #used(name: string): boolean {
    return this.#names.has(name) || this.#taken(name);
  }
}
