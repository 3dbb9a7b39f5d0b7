import { isSchemaObject } from './json-schema.js';

/** Canonical JSON with sorted keys: equal for values ajv's uniqueItems treats as equal. */
export function stableKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableKey).join(',')}]`;
  if (isSchemaObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableKey(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'undefined';
}
