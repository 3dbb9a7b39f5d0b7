import { isIPv4, isIPv6 } from 'node:net';
import AjvDraft07Module from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import { zodSchema } from 'ai';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import { generateValue as generateWith, type GenerateOptions } from './generate-value.js';
import { GenerationCache } from './generation-cache.js';

// One cache for the file, as a FakeProvider holds one for its life.
const cache = new GenerationCache();
const generateValue = (schema: Parameters<typeof generateWith>[0], options: Partial<GenerateOptions> = {}): unknown =>
  generateWith(schema, { cache, ...options });
import type { JsonSchema } from './json-schema.js';

// The check is independent of the generator: its own ajv instances and its own format checks,
// written from the RFCs with Node's parsers rather than shared with string-formats.ts.
const Ajv2020 = (Ajv2020Module as unknown as { default: typeof Ajv2020Module.default }).default;
const AjvDraft07 = (AjvDraft07Module as unknown as { default: typeof AjvDraft07Module.default }).default;

const FORMATS = {
  'date-time': (text: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(text) && !Number.isNaN(Date.parse(text)),
  date: (text: string) => /^\d{4}-\d\d-\d\d$/.test(text) && new Date(`${text}T00:00:00Z`).toISOString().startsWith(text),
  time: (text: string) => /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(text),
  duration: (text: string) => /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/.test(text),
  email: (text: string) => /^[^\s@]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(text),
  hostname: (text: string) => text.length <= 253 && text.split('.').every((label) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label)),
  ipv4: (text: string) => isIPv4(text),
  ipv6: (text: string) => isIPv6(text),
  uri: (text: string) => /^[a-z][a-z0-9+.-]*:[^\s]*$/i.test(text) && URL.canParse(text),
  uuid: (text: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(text),
  'json-pointer': (text: string) => /^(\/([^~/]|~[01])*)*$/.test(text),
  int32: { type: 'number', validate: (value: number) => Number.isInteger(value) && Math.abs(value + 0.5) <= 2 ** 31 },
  int64: { type: 'number', validate: (value: number) => Number.isSafeInteger(value) },
  nanoid: true,
} as const;

const validators = {
  draft2020: new Ajv2020({ strict: false, allErrors: true, formats: FORMATS }),
  draft07: new AjvDraft07({ strict: false, allErrors: true, formats: FORMATS }),
};

/** Fails the test with ajv's errors unless `value` is valid against `schema`. */
function expectValid(schema: JsonSchema, value: unknown): void {
  const draft07 = typeof schema === 'object' && String(schema.$schema ?? '').includes('draft-07');
  const validator = draft07 ? validators.draft07 : validators.draft2020;
  const validate = validator.compile(schema);
  const valid = validate(value);
  expect(valid, `${JSON.stringify(value)} is invalid: ${validator.errorsText(validate.errors)}`).toBe(true);
}

/** Generates a value and checks it with the independent validator. */
function generateValid(schema: JsonSchema, options?: Partial<GenerateOptions>): unknown {
  const value = generateValue(schema, options);
  expectValid(schema, value);
  return value;
}

function unsupported(schema: JsonSchema, options?: Partial<GenerateOptions>): UnsupportedSchemaError {
  try {
    generateValue(schema, options);
  } catch (error) {
    expect(error).toBeInstanceOf(UnsupportedSchemaError);
    return error as UnsupportedSchemaError;
  }
  throw new Error(`expected UnsupportedSchemaError for ${JSON.stringify(schema)}`);
}

/** Containers nested in a value: 0 for a scalar, 1 for a flat object or array. */
function nesting(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(nesting));
  if (typeof value === 'object' && value !== null) return 1 + Math.max(0, ...Object.values(value).map(nesting));
  return 0;
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(strings);
  return [];
}

function arrays(value: unknown): unknown[][] {
  if (Array.isArray(value)) return [value, ...value.flatMap(arrays)];
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(arrays);
  return [];
}

const WEATHER_TOOL = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
  required: ['city', 'unit'],
  additionalProperties: false,
} as const;

// As the Vercel AI SDK sends a zod schema (zod 4 through `zodSchema`), captured from ai 6.
const VERCEL_TOOL = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City' },
    unit: { type: 'string', enum: ['c', 'f'] },
    email: {
      type: 'string',
      format: 'email',
      pattern: "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$",
    },
    when: { type: 'string', format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?Z$' },
    id: {
      type: 'string',
      format: 'uuid',
      pattern: '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000)$',
    },
    url: { type: 'string', format: 'uri' },
    pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false, minItems: 2, maxItems: 2 },
    tags: { maxItems: 3, type: 'array', items: { type: 'string' } },
    count: { type: 'integer', minimum: 0, maximum: 10 },
    note: { type: ['string', 'null'] },
  },
  required: ['city', 'email', 'when', 'id', 'url', 'pair', 'tags', 'count', 'note'],
  additionalProperties: false,
} as const;

describe('generateValue on tool schemas as providers receive them', () => {
  test('fills every required property of an OpenAI or Anthropic function schema with plausible values', () => {
    const value = generateValid(WEATHER_TOOL) as { city: string; unit: string };
    expect(Object.keys(value)).toEqual(['city', 'unit']);
    expect(value.city).toMatch(/^city-\d+$/);
    expect(['c', 'f']).toContain(value.unit);
  });

  test('handles an OpenAI strict-mode schema with nullable types, $defs and nested objects', () => {
    const schema = {
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: ['integer', 'null'] },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        filter: { $ref: '#/$defs/filter' },
      },
      required: ['query', 'limit', 'note', 'filter'],
      additionalProperties: false,
      $defs: {
        filter: {
          type: 'object',
          properties: { field: { type: 'string', enum: ['name', 'date'] }, values: { type: 'array', items: { type: 'string' } } },
          required: ['field', 'values'],
          additionalProperties: false,
        },
      },
    };
    const value = generateValid(schema) as { query: string; limit: unknown; note: unknown; filter: { values: string[] } };
    // Strict mode writes optional fields as nullable; the first non-null type is used.
    expect(typeof value.limit).toBe('number');
    expect(typeof value.note).toBe('string');
    expect(value.filter.values.length).toBeGreaterThan(0);
  });

  test('handles an Anthropic input_schema with nested arrays of objects and formats', () => {
    const schema = {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 3, maxLength: 80 },
        start: { type: 'string', format: 'date-time' },
        length: { type: 'string', format: 'duration' },
        attendees: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: { email: { type: 'string', format: 'email' }, optional: { type: 'boolean' } },
            required: ['email'],
          },
        },
      },
      required: ['title', 'start', 'attendees'],
    };
    const value = generateValid(schema) as { attendees: Array<{ email: string }> };
    expect(value.attendees[0]!.email).toMatch(/@example\.com$/);
  });

  test('reads a draft-07 schema as the Vercel AI SDK sends it, tuples included', () => {
    const value = generateValid(VERCEL_TOOL) as { pair: unknown[]; email: string };
    expect(value.pair).toHaveLength(2);
    expect(typeof value.pair[0]).toBe('string');
    expect(typeof value.pair[1]).toBe('number');
  });

  test('handles the schema the installed AI SDK makes from a recursive zod schema', async () => {
    type Category = { name: string; children: Category[] };
    const category: z.ZodType<Category> = z.lazy(() => z.object({ name: z.string(), children: z.array(category) }));
    const schema = (await zodSchema(z.object({ root: category, nanoid: z.nanoid(), at: z.iso.datetime() })).jsonSchema) as JsonSchema;
    expect(JSON.stringify(schema)).toContain('"$ref":"#');
    generateValid(schema);
  });

  test("uses the author's valid example or default, and ignores an invalid one", () => {
    expect(generateValid({ type: 'string', examples: ['Paris'] })).toBe('Paris');
    expect(generateValid({ anyOf: [{ type: 'string' }, { type: 'null' }], default: null, title: 'Note' })).toBeNull();
    expect(generateValid({ type: 'integer', minimum: 5, examples: [1], default: 7 })).toBe(7);
    expect(generateValid({ type: 'string', examples: ['Paris'] }, { useExamples: false })).not.toBe('Paris');
  });
});

describe('generateValue per keyword', () => {
  test('recurses through $defs and "$ref": "#" and stops at maxDepth', () => {
    const tree = {
      $defs: {
        node: { type: 'object', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['label'] },
      },
      $ref: '#/$defs/node',
    };
    const linked = {
      type: 'object',
      properties: { value: { type: 'integer' }, next: { anyOf: [{ $ref: '#' }, { type: 'null' }] } },
      required: ['value', 'next'],
    };
    for (const maxDepth of [0, 1, 2, 5]) {
      expect(nesting(generateValid(tree, { maxDepth }))).toBe(maxDepth + 1);
      expect(nesting(generateValid(linked, { maxDepth }))).toBeLessThanOrEqual(maxDepth + 1);
    }
  });

  test('produces valid examples for every string format it knows', () => {
    const formats = ['date-time', 'date', 'time', 'email', 'uuid', 'uri', 'hostname', 'ipv4', 'ipv6', 'duration', 'json-pointer'];
    for (const format of formats) for (const seed of [0, 1, 2]) generateValid({ type: 'string', format }, { seed });
    expect(generateValue({ type: 'string', format: 'ipv4' })).toMatch(/^192\.0\.2\.\d+$/);
    expect(formats).toHaveLength(11);
  });

  test('respects minimum, maximum, their exclusive forms and multipleOf', () => {
    const schemas: JsonSchema[] = [
      { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
      { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 0.001 },
      { type: 'integer', exclusiveMinimum: 3, exclusiveMaximum: 5 },
      { type: 'integer', minimum: -10, maximum: -10 },
      { type: 'integer', multipleOf: 7, minimum: 50 },
      { type: 'number', multipleOf: 0.01, minimum: 10, maximum: 20 },
      { type: 'number', multipleOf: 0.1, maximum: -5 },
      { type: 'integer', multipleOf: 0.5, minimum: 1, maximum: 2 },
      { type: 'integer', format: 'int32', minimum: 2147483000 },
      { type: 'number', minimum: 1e300 },
    ];
    for (const schema of schemas) for (const seed of [0, 1, 2, 3]) generateValid(schema, { seed });
    expect(generateValid({ type: 'integer', exclusiveMinimum: 3, exclusiveMaximum: 5 })).toBe(4);
    expect(unsupported({ type: 'integer', minimum: 5, maximum: 4 }).keywords).toEqual(['minimum', 'maximum']);
  });

  test('makes the items of a uniqueItems array all different', () => {
    const value = generateValid({ type: 'array', items: { enum: ['a', 'b', 'c'] }, uniqueItems: true, minItems: 3 }) as string[];
    expect([...value].sort()).toEqual(['a', 'b', 'c']);
    generateValid({ type: 'array', items: { type: 'boolean' }, uniqueItems: true, minItems: 2 });
    generateValid({ type: 'array', items: { type: 'string', maxLength: 1 }, uniqueItems: true, minItems: 5 });
    expect(unsupported({ type: 'array', items: { type: 'boolean' }, uniqueItems: true, minItems: 3 }).keywords).toContain('uniqueItems');
  });

  test('fills prefixItems in order and adds no free items to a tuple', () => {
    const value = generateValid({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }, { const: 'end' }], items: false });
    expect(value).toEqual([expect.any(String), expect.any(Number), 'end']);
    expect(generateValid({ type: 'array', prefixItems: [{ type: 'boolean' }], minItems: 3, items: { type: 'null' } })).toEqual([
      expect.any(Boolean),
      null,
      null,
    ]);
  });

  test('takes the first anyOf branch that gives a valid value, and a oneOf value matching exactly one branch', () => {
    expect(typeof generateValid({ anyOf: [{ type: 'string', maxLength: 0, minLength: 1 }, { type: 'integer' }] })).toBe('number');
    const oneOf = generateValid({ oneOf: [{ type: 'number' }, { type: 'integer' }] });
    expect(Number.isInteger(oneOf)).toBe(false);
    generateValid({
      type: 'object',
      properties: { kind: { type: 'string' } },
      required: ['kind'],
      oneOf: [{ properties: { kind: { const: 'circle' }, radius: { type: 'number' } }, required: ['radius'] }, { properties: { kind: { const: 'square' } } }],
    });
  });

  test("merges allOf parts, including one part's additionalProperties governing another's properties", () => {
    const value = generateValid({
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'integer', minimum: 3 } }, required: ['b'] },
      ],
    });
    expect(value).toEqual({ a: expect.any(String), b: expect.any(Number) });
    const closed = generateValid({
      allOf: [{ properties: { a: { type: 'string' } }, additionalProperties: false }, { properties: { b: { type: 'string' } } }],
      type: 'object',
    });
    expect(closed).not.toHaveProperty('b');
  });

  test('an empty schema and true give something valid, false is refused', () => {
    expect(generateValid({})).toEqual(expect.any(String));
    expect(generateValid(true)).toEqual(expect.any(String));
    expect(unsupported(false).keywords).toEqual([]);
  });
});

describe('generateValue is deterministic', () => {
  const schemas: JsonSchema[] = [
    WEATHER_TOOL,
    VERCEL_TOOL,
    { type: 'array', items: { type: 'integer' }, minItems: 2 },
    { type: 'string', format: 'uuid' },
    { type: 'number', minimum: 0, maximum: 1000 },
    { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
  ];

  test('gives deep-equal values for the same schema and seed', () => {
    for (const schema of schemas) for (const seed of [0, 7, 123456]) expect(generateValue(schema, { seed })).toEqual(generateValue(schema, { seed }));
    expect(schemas).toHaveLength(6);
  });

  test('gives different values for different seeds', () => {
    for (const schema of schemas) {
      const values = new Set([0, 1, 2, 3].map((seed) => JSON.stringify(generateValue(schema, { seed }))));
      expect(values.size, JSON.stringify(schema)).toBeGreaterThan(1);
    }
  });
});

describe('generateValue stays within its bounds', () => {
  const nested = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      groups: { type: 'array', items: { type: 'array', items: { type: 'string', description: 'a fairly long property' } } },
      child: { $ref: '#' },
    },
  };

  test('nests optional content no deeper than maxDepth', () => {
    for (const maxDepth of [0, 1, 3, 6]) expect(nesting(generateValid(nested, { maxDepth }))).toBeLessThanOrEqual(maxDepth + 1);
  });

  test('makes arrays no longer than maxItems unless minItems asks for more', () => {
    for (const maxItems of [0, 1, 2, 5]) {
      const found = arrays(generateValid(nested, { maxItems, maxDepth: 4 }));
      expect(found.length).toBeGreaterThan(0);
      for (const array of found) expect(array.length).toBeLessThanOrEqual(maxItems);
    }
    expect(generateValid({ type: 'array', minItems: 4 }, { maxItems: 1 })).toHaveLength(4);
  });

  test('makes free-form strings no longer than maxLength unless minLength asks for more', () => {
    for (const maxLength of [0, 1, 4, 10]) {
      const found = strings(generateValid(nested, { maxLength, maxDepth: 3 }));
      expect(found.length).toBeGreaterThan(0);
      for (const text of found) expect(text.length).toBeLessThanOrEqual(maxLength);
    }
    expect(generateValid({ type: 'string', minLength: 30 }, { maxLength: 5 })).toHaveLength(30);
  });

  test('refuses bad options with a RangeError naming the option', () => {
    expect(() => generateValue({}, { maxDepth: -1 })).toThrow('Invalid generateValue option maxDepth -1: expected a non-negative integer');
    expect(() => generateValue({}, { seed: 0.5 })).toThrow(RangeError);
  });
});

describe('generateValue refuses what it cannot honour', () => {
  test('names an unhonoured keyword and where it is', () => {
    const cases: Array<[JsonSchema, string[], string]> = [
      [{ type: 'object', properties: { city: { not: { type: 'null' } } }, required: ['city'] }, ['not'], '.properties.city'],
      [{ if: { type: 'string' }, then: { minLength: 2 } }, ['if', 'then'], ''],
      [{ type: 'array', contains: { const: 1 } }, ['contains'], ''],
      [{ type: 'object', dependentSchemas: { a: { required: ['b'] } } }, ['dependentSchemas'], ''],
      [{ type: 'object', properties: { city: { type: 'string', 'x-display': 'City', nullable: true } } }, ['x-display', 'nullable'], '.properties.city'],
      [{ type: 'string', format: 'phone' }, ['format'], ''],
      [{ $ref: 'https://example.com/address.json' }, ['$ref'], ''],
      [{ properties: { a: { $ref: '#/$defs/missing' } } }, ['$ref'], '.properties.a'],
      [{ type: 'string', pattern: '^\\p{Lu}{3}$' }, ['pattern'], ''],
      [{ type: 'object', properties: { list: { type: 'array', items: { type: 'strnig' } } } }, ['type'], '.properties.list.items'],
      [{ type: 'object', properties: { code: { type: 'string', pattern: '[A-Z' } } }, ['pattern'], '.properties.code'],
    ];
    for (const [schema, keywords, path] of cases) {
      const error = unsupported(schema);
      expect(error.keywords, JSON.stringify(schema)).toEqual(keywords);
      expect(error.path, JSON.stringify(schema)).toBe(path);
      expect(error.code).toBe('unsupported_schema');
      for (const keyword of keywords) expect(error.message).toContain(keyword);
    }
    expect(cases).toHaveLength(11);
  });

  test('explains the failure and the next step in the message', () => {
    expect(unsupported({ type: 'object', properties: { city: { not: {} } }, required: ['city'] }).message).toBe(
      'Cannot generate a value for the schema at .properties.city: the generator does not make values for "not".\n' +
        '  keywords: not\n' +
        'Simplify that part of the schema, or give it an "examples" entry that is valid against it.',
    );
  });

  test('leaves out an optional property or skips an anyOf branch it cannot make, instead of failing', () => {
    expect(generateValid({ type: 'object', properties: { city: { not: {} }, unit: { type: 'string' } } })).toEqual({ unit: expect.any(String) });
    expect(generateValid({ anyOf: [{ not: { type: 'string' } }, { type: 'boolean' }] })).toEqual(expect.any(Boolean));
    const error = unsupported({ anyOf: [{ not: {} }, { contains: {} }] });
    expect(error.keywords).toEqual(['anyOf', 'not', 'contains']);
  });

  test('refuses a recursion that never ends instead of looping', () => {
    const required = unsupported({ type: 'object', properties: { child: { $ref: '#' } }, required: ['child'] });
    expect(required.keywords).toEqual(['$ref']);
    expect(required.path).toBe('.properties.child');
    const cycle = unsupported({ $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' });
    expect([cycle.keywords, cycle.path]).toEqual([['$ref'], '.$defs.b']);
    // Left recursion: ajv itself would recurse forever checking a value against this.
    const left = unsupported({ anyOf: [{ $ref: '#' }, { type: 'string' }] });
    expect([left.keywords, left.path]).toEqual([['$ref'], '.anyOf[0]']);
  });

  test('throws rather than return a value ajv rejects', () => {
    // Two patterns cannot be merged; the value made from the first fails the second.
    const error = unsupported({ type: 'string', allOf: [{ pattern: '^a' }, { pattern: 'b$' }] });
    expect(error.keywords).toContain('pattern');
  });
});

describe('generateValue over many schemas', () => {
  const schemas: JsonSchema[] = [
    WEATHER_TOOL,
    VERCEL_TOOL,
    {},
    true,
    { type: 'null' },
    { type: 'boolean' },
    { const: { nested: [1, 2, { deep: true }] } },
    { enum: [1, 'two', null, { three: 3 }] },
    { type: ['string', 'null'], maxLength: 3 },
    { type: ['null', 'object'], properties: { a: { type: 'integer' } }, required: ['a'] },
    { type: 'string', minLength: 5, maxLength: 5 },
    { type: 'string', pattern: '^[a-z0-9_-]{3,12}$' },
    { type: 'string', pattern: '^(foo|bar)\\.(json|yaml)$' },
    { type: 'string', pattern: '\\d{3}' },
    { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$', maxLength: 30 },
    { type: 'string', format: 'email', maxLength: 40 },
    { type: 'integer', minimum: 1, maximum: 3 },
    { type: 'number', exclusiveMaximum: 0 },
    { type: 'object', additionalProperties: { type: 'number', minimum: 0 } },
    { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false, minProperties: 2 },
    { type: 'object', patternProperties: { '^id': { type: 'integer' } }, properties: { id: { minimum: 10 } }, required: ['id'] },
    { type: 'object', propertyNames: { pattern: '^[a-z]+$' }, minProperties: 3 },
    { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } }, maxProperties: 2 },
    { type: 'object', properties: { card: { type: 'string' }, cvv: { type: 'string' } }, dependentRequired: { card: ['cvv'] } },
    { type: 'array', items: { type: 'array', items: { type: 'number' }, minItems: 2 }, minItems: 1, maxItems: 2 },
    { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'string', format: 'date' }] },
    {
      allOf: [{ $ref: '#/$defs/base' }, { properties: { extra: { type: 'boolean' } }, required: ['extra'] }],
      $defs: { base: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] } },
    },
    {
      oneOf: [
        { type: 'string', enum: ['a'] },
        { type: 'string', pattern: '^a' },
        { type: 'string', minLength: 2 },
      ],
    },
    { anyOf: [{ type: 'object', required: ['x'], properties: { x: { const: 1 } } }, { type: 'array' }], minProperties: 1 },
    {
      definitions: { leaf: { type: 'string', enum: ['x', 'y'] } },
      type: 'object',
      properties: { leaves: { type: 'array', items: { $ref: '#/definitions/leaf' }, uniqueItems: true } },
    },
    {
      type: 'object',
      properties: { when: { type: 'string', format: 'time' }, host: { type: 'string', format: 'hostname' }, ip: { type: 'string', format: 'ipv6' } },
      required: ['when', 'host', 'ip'],
      strict: true,
      $comment: 'tolerated',
      $anchor: 'top',
      deprecated: false,
    },
    { type: 'integer', format: 'int64', multipleOf: 1000 },
  ];

  test('gives ajv-valid values for every schema and seed', () => {
    let checked = 0;
    for (const schema of schemas) {
      for (const seed of [0, 1, 2, 3, 4]) {
        generateValid(schema, { seed });
        checked++;
      }
    }
    expect(schemas).toHaveLength(32);
    expect(checked).toBe(160);
  });
});
