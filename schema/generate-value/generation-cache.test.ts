import { describe, expect, test } from 'vitest';
import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import { generateValue } from './generate-value.js';
import { GenerationCache } from './generation-cache.js';
import type { JsonSchema } from './json-schema.js';

const SCHEMAS: JsonSchema[] = [
  { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city', 'unit'] },
  { type: 'array', items: { type: 'string', format: 'email' }, minItems: 2 },
  { type: 'string', format: 'nanoid', pattern: '^[a-zA-Z0-9_-]{21}$' },
  { $defs: { node: { type: 'object', properties: { label: { type: 'string' }, next: { $ref: '#/$defs/node' } }, required: ['label'] } }, $ref: '#/$defs/node' },
];

describe('GenerationCache', () => {
  test('gives the value a fresh cache gives, first and when asked again, across schemas', () => {
    const cache = new GenerationCache();
    let checked = 0;
    for (const seed of [0, 1, 2]) {
      for (const schema of SCHEMAS) {
        const fresh = JSON.stringify(generateValue(schema, { seed, cache: new GenerationCache() }));
        expect(JSON.stringify(generateValue(schema, { seed, cache }))).toBe(fresh);
        expect(JSON.stringify(generateValue(schema, { seed, cache }))).toBe(fresh);
        checked++;
      }
    }
    expect(checked).toBe(12);
  });

  test('hands out copies, so changing a value does not change the next one', () => {
    const cache = new GenerationCache();
    const schema = SCHEMAS[0]!;
    const first = generateValue(schema, { cache }) as { city: string };
    first.city = 'changed';
    expect(generateValue(schema, { cache })).toEqual(generateValue(schema, { cache: new GenerationCache() }));
    expect(generateValue(schema, { cache })).not.toHaveProperty('city', 'changed');
  });

  test('remembers no failure: a schema it cannot honour throws on every call', () => {
    const cache = new GenerationCache();
    for (let call = 0; call < 2; call++) expect(() => generateValue({ not: {} }, { cache })).toThrow(UnsupportedSchemaError);
    // The failed call left nothing behind in ajv: the next schema compiles under the same id.
    expect(generateValue({ type: 'boolean' }, { cache })).toEqual(expect.any(Boolean));
  });

  test('keeps at most 200 values, then forgets them all and starts again', () => {
    const cache = new GenerationCache();
    for (let index = 0; index < 200; index++) cache.remember(`key-${index}`, index);
    expect(cache.recall('key-0')).toEqual({ value: 0 });
    expect(cache.recall('key-199')).toEqual({ value: 199 });
    cache.remember('key-200', 200);
    expect(cache.recall('key-0')).toBeUndefined();
    expect(cache.recall('key-200')).toEqual({ value: 200 });
  });

  test('sets ajv up once for every cache, and each call leaves no schema compiled in it', () => {
    const cache = new GenerationCache();
    expect(new GenerationCache().validator()).toBe(cache.validator());
    generateValue({ type: 'object', properties: { city: { type: 'string' } }, $id: 'https://example.test/city' }, { cache });
    expect(cache.validator().getSchema('https://example.test/city')).toBeUndefined();
  });
});
