import type { JsonSchemaObject, JsonSchemaProperty } from '../service/types.ts';

/**
 * Checks parsed tool arguments against the subset of JSON Schema tools declare (type, enum, required,
 * properties, items, additionalProperties). Returns readable problems for the model to correct; empty when fine.
 */
export function validateArgs(schema: JsonSchemaObject, value: unknown): string[] {
  const problems: string[] = [];
  check(schema, value, 'arguments', problems);
  return problems;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(expected: string, value: unknown): boolean {
  const actual = typeOf(value);
  if (expected === 'number') return actual === 'number' || actual === 'integer';
  return actual === expected;
}

function check(schema: JsonSchemaProperty | JsonSchemaObject, value: unknown, path: string, problems: string[]): void {
  if (schema.type && !matchesType(schema.type, value)) {
    problems.push(`${path} must be ${schema.type === 'integer' ? 'an' : 'a'} ${schema.type}, got ${typeOf(value)}`);
    return;
  }
  const allowed = 'enum' in schema ? schema.enum : undefined;
  if (allowed && !allowed.includes(value as string)) {
    problems.push(`${path} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  if (typeOf(value) === 'object' && (schema.properties || schema.required)) {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) {
      if (!Object.hasOwn(object, name)) problems.push(`${path}.${name} is required`);
    }
    for (const [name, item] of Object.entries(object)) {
      const property = schema.properties && Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
      if (property) check(property, item, `${path}.${name}`, problems);
      else if ('additionalProperties' in schema && schema.additionalProperties === false) problems.push(`${path}.${name} is not a known parameter`);
    }
  }
  if (Array.isArray(value) && 'items' in schema && schema.items) {
    value.forEach((item, i) => check(schema.items!, item, `${path}[${i}]`, problems));
  }
}
