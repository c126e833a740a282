import type { JsonSchemaObject, JsonSchemaProperty } from '../service/types.ts';

/** Longest description kept for a tool or a parameter; longer ones are cut (and the cut is reported). */
export const MAX_DESCRIPTION_CHARS = 1024;
const MAX_DEPTH = 6;
const MAX_PROPERTIES = 64;
const MAX_ENUM = 100;
/** Schema nodes walked for one tool, however its `$ref`s nest: a hostile schema cannot make the walk explode. */
const MAX_NODES = 500;
/** Longest flattened schema sent with every request; past it the parameters lose their descriptions. */
const MAX_SCHEMA_CHARS = 24_000;

interface Walk {
  notes: string[];
  nodes: number;
}

type Schema = Record<string, unknown>;

export interface SimplifiedSchema {
  schema: JsonSchemaObject;
  /** What had to be cut or guessed, for a log line. */
  notes: string[];
}

/**
 * The flat form of a tool's input schema that the service's tool format shows: `$ref`s resolved (recursion cut
 * at a depth), `allOf` merged, `anyOf`/`oneOf` of objects merged into one object whose properties are optional
 * unless every variant requires them, a `null` variant dropped (the value is then optional), and a union of
 * different types shown as its first type with the others named in the description. Only `type`, `description`,
 * `enum`, `properties`, `required` and `items` are kept. Arguments are still checked against the original schema.
 */
export function simplifySchema(input: unknown): SimplifiedSchema {
  const root = isSchema(input) ? input : {};
  const notes: string[] = [];
  const flat = simplify(root, root, 0, { notes, nodes: 0 }, 'arguments');
  const schema: JsonSchemaObject = { type: 'object', properties: {} };
  if (flat.type === 'object') {
    schema.properties = flat.properties ?? {};
    if (flat.required && flat.required.length > 0) schema.required = flat.required;
  } else notes.push('the input schema is not an object schema; the tool is offered without parameters');
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS) {
    notes.push(`the schema is over ${MAX_SCHEMA_CHARS} characters; the parameters are shown without descriptions`);
    schema.properties = withoutDescriptions(schema.properties);
  }
  return { schema, notes };
}

/** A description trimmed to MAX_DESCRIPTION_CHARS, noted when cut. */
export function trimDescription(text: string, what: string, notes: string[]): string {
  if (text.length <= MAX_DESCRIPTION_CHARS) return text;
  notes.push(`${what}: description cut from ${text.length} to ${MAX_DESCRIPTION_CHARS} characters`);
  return `${text.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A local `#/…` JSON pointer, or undefined for anything else (remote refs are never fetched). */
function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchema(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return isSchema(node) ? node : undefined;
}

/** A schema with `$ref` and `allOf` folded in (one level; the parts are simplified by the caller). */
function expand(schema: Schema, root: Schema, depth: number, walk: Walk, path: string): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 8; hops += 1) {
    const target = resolveRef(root, current.$ref);
    if (!target) {
      walk.notes.push(`${path}: cannot resolve ${String(current.$ref).slice(0, 80)}`);
      const { $ref: _, ...rest } = current;
      current = rest;
      break;
    }
    const { $ref: _, ...rest } = current;
    current = { ...target, ...rest };
  }
  if (Array.isArray(current.allOf) && depth < MAX_DEPTH) {
    const { allOf, ...rest } = current;
    let merged: Schema = rest;
    for (const part of allOf as unknown[]) {
      if (!isSchema(part)) continue;
      const p = expand(part, root, depth + 1, walk, path);
      merged = {
        ...p,
        ...merged,
        properties: { ...(isSchema(p.properties) ? p.properties : {}), ...(isSchema(merged.properties) ? merged.properties : {}) },
        required: [...stringList(p.required), ...stringList(merged.required)],
      };
    }
    current = merged;
  }
  return current;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function typeNames(schema: Schema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string');
  if (isSchema(schema.properties)) return ['object'];
  if (schema.items !== undefined) return ['array'];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return [...new Set(schema.enum.map((v) => (v === null ? 'null' : typeof v)))];
  if (schema.const !== undefined) return [schema.const === null ? 'null' : typeof schema.const];
  return [];
}

function simplify(input: Schema, root: Schema, depth: number, walk: Walk, path: string): JsonSchemaProperty {
  walk.nodes += 1;
  if (walk.nodes === MAX_NODES) walk.notes.push(`${path}: the schema is too large; deeper parts are shown without their inner structure`);
  const deep = depth >= MAX_DEPTH || walk.nodes >= MAX_NODES;
  const schema = expand(input, root, depth, walk, path);
  const description =
    typeof schema.description === 'string' && schema.description.trim() !== '' ? trimDescription(schema.description, path, walk.notes) : undefined;
  const variants = [...(Array.isArray(schema.anyOf) ? schema.anyOf : []), ...(Array.isArray(schema.oneOf) ? schema.oneOf : [])]
    .filter(isSchema)
    .filter((variant) => !typeNames(variant).every((t) => t === 'null') || typeNames(variant).length === 0);
  if (variants.length > 0 && !deep) {
    const { anyOf: _a, oneOf: _o, description: _d, ...own } = schema;
    const flattened = variants.map((variant) => simplify({ ...own, ...variant }, root, depth + 1, walk, path));
    return withDescription(union(flattened, path, walk.notes), description);
  }
  const types = typeNames(schema).filter((t) => t !== 'null');
  if (types.length > 1) walk.notes.push(`${path}: may be ${types.join(' or ')}; shown as ${types[0]}`);
  const type =
    types[0] === 'integer' || types[0] === 'number' || types[0] === 'boolean' || types[0] === 'array' || types[0] === 'object' ? types[0] : 'string';
  const out: JsonSchemaProperty = { type };
  const otherTypes = types.length > 1 ? ` (or ${types.slice(1).join(' or ')})` : '';
  if (description || otherTypes) out.description = `${description ?? ''}${otherTypes}`.trim();
  const values = Array.isArray(schema.enum) ? schema.enum : schema.const !== undefined ? [schema.const] : undefined;
  if (values) {
    const kept = values.filter((v): v is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof v)).slice(0, MAX_ENUM);
    if (kept.length > 0) out.enum = kept;
  }
  if (type === 'object' && !deep) {
    const properties = isSchema(schema.properties) ? Object.entries(schema.properties).filter(([, v]) => isSchema(v)) : [];
    if (properties.length > MAX_PROPERTIES) walk.notes.push(`${path}: only the first ${MAX_PROPERTIES} of ${properties.length} properties are shown`);
    out.properties = Object.fromEntries(
      properties.slice(0, MAX_PROPERTIES).map(([name, value]) => [name, simplify(value as Schema, root, depth + 1, walk, `${path}.${name}`)]),
    );
    const required = stringList(schema.required).filter((name) => Object.hasOwn(out.properties!, name));
    if (required.length > 0) out.required = [...new Set(required)];
  }
  if (type === 'array' && isSchema(schema.items) && !deep) out.items = simplify(schema.items, root, depth + 1, walk, `${path}[]`);
  return out;
}

/** One schema standing for several alternatives. */
function union(variants: JsonSchemaProperty[], path: string, notes: string[]): JsonSchemaProperty {
  const types = [...new Set(variants.map((v) => v.type))];
  if (types.length === 1 && types[0] === 'object') {
    const properties: Record<string, JsonSchemaProperty> = {};
    for (const v of variants) for (const [name, p] of Object.entries(v.properties ?? {})) properties[name] ??= p;
    const required = (variants[0]!.required ?? []).filter((name) => variants.every((v) => v.required?.includes(name)));
    const descriptions = variants.map((v) => v.description).filter((d): d is string => d !== undefined);
    return {
      type: 'object',
      properties,
      ...(required.length > 0 && { required }),
      ...(descriptions.length > 0 && { description: `One of: ${descriptions.join(' | ')}` }),
    };
  }
  if (types.length === 1) {
    const enums = variants.every((v) => v.enum) ? [...new Set(variants.flatMap((v) => v.enum!))] : undefined;
    return { ...variants[0]!, ...(enums && { enum: enums }) };
  }
  notes.push(`${path}: may be ${types.join(' or ')}; shown as ${types[0]}`);
  return { ...variants[0]!, description: `${variants[0]!.description ?? ''} (or ${types.slice(1).join(' or ')})`.trim() };
}

function withDescription(schema: JsonSchemaProperty, description: string | undefined): JsonSchemaProperty {
  return description ? { ...schema, description: schema.description ? `${description} ${schema.description}` : description } : schema;
}

function withoutDescriptions(properties: Record<string, JsonSchemaProperty>): Record<string, JsonSchemaProperty> {
  return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, bare(property)]));
}

function bare(property: JsonSchemaProperty): JsonSchemaProperty {
  const { description: _, properties, items, ...rest } = property;
  return {
    ...rest,
    ...(properties && { properties: withoutDescriptions(properties) }),
    ...(items && { items: bare(items as JsonSchemaProperty) }),
  };
}
