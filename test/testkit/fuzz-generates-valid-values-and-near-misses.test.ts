import { describe, expect, test } from 'vitest';
import Ajv2020Module from 'ajv/dist/2020.js';
import { parseToolArguments, type Tool } from 'modeltape/runtime';
import { fuzz, FuzzCheckError, FuzzUnsupportedError } from 'modeltape/testkit';

const Ajv2020 = (Ajv2020Module as unknown as { default: typeof Ajv2020Module.default }).default;
const ajv = new Ajv2020({ strict: false, allErrors: true });

const order = {
  type: 'object',
  properties: {
    customer: { $ref: '#/$defs/customer' },
    items: { type: 'array', minItems: 1, maxItems: 4, uniqueItems: true, items: { type: 'string', minLength: 2, maxLength: 12 } },
    quantity: { type: 'integer', minimum: 1, exclusiveMaximum: 100 },
    priority: { enum: ['low', 'normal', 'high'] },
    channel: { const: 'web' },
    note: { anyOf: [{ type: 'string', maxLength: 40 }, { type: 'null' }] },
    location: {
      type: 'array',
      prefixItems: [
        { type: 'number', minimum: -90, maximum: 90 },
        { type: 'number', minimum: -180, maximum: 180 },
      ],
      minItems: 2,
      maxItems: 2,
    },
  },
  required: ['customer', 'items', 'quantity'],
  additionalProperties: false,
  $defs: {
    customer: {
      type: 'object',
      properties: { id: { type: 'integer', exclusiveMinimum: 0 }, name: { type: 'string', minLength: 1 } },
      required: ['id'],
      minProperties: 1,
      maxProperties: 2,
    },
  },
};

describe('fuzz.valid', () => {
  test('gives values the schema accepts, the same for a seed, others for another seed, within the bounds', () => {
    const validate = ajv.compile(order);
    const values = fuzz.valid(order, { count: 25, seed: 4, maxItems: 3, maxLength: 8 });
    expect(values.length).toBeGreaterThanOrEqual(15);
    for (const value of values) expect(validate(value), JSON.stringify(value)).toBe(true);
    expect(fuzz.valid(order, { count: 25, seed: 4, maxItems: 3, maxLength: 8 })).toEqual(values);
    expect(fuzz.valid(order, { count: 25, seed: 5, maxItems: 3, maxLength: 8 })).not.toEqual(values);
    for (const value of values as Array<{ items: string[] }>) {
      expect(value.items.length).toBeLessThanOrEqual(3);
      for (const item of value.items) expect([...item].length).toBeLessThanOrEqual(8); // code points, as maxLength counts them
    }
  });

  test('names a keyword it cannot generate for instead of guessing', () => {
    const schema = { type: 'object', properties: { email: { type: 'string', format: 'email' }, code: { type: 'string', pattern: '^[A-Z]{3}$' } } };
    let thrown: unknown;
    try {
      fuzz.valid(schema);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FuzzUnsupportedError);
    expect((thrown as FuzzUnsupportedError).keywords).toEqual(['format', 'pattern']);
    expect((thrown as Error).message).toContain(
      'The kit cannot generate values for "format", "pattern" (at .properties.email.format, .properties.code.pattern)',
    );
  });
});

describe('fuzz.invalid', () => {
  test('starts with the boundary cases, each refused before any schema is consulted', () => {
    const cases = fuzz.invalid(order);
    expect(cases.slice(0, 6).map((entry) => entry.description)).toEqual([
      'nesting to 300 levels, past the depth cap of 256',
      expect.stringMatching(/^a duplicate key "customer"$/),
      'invalid UTF-8 (0xC3 0x28)',
      'an unpaired surrogate (\\ud800)',
      'truncated JSON',
      'two JSON values',
    ]);
    for (const entry of cases.slice(0, 6)) {
      const parsed = parseToolArguments(entry.raw);
      expect(parsed.ok, entry.description).toBe(false);
    }
    // Each is one flaw away from valid: the duplicate key's object is otherwise a valid value.
    const duplicate = cases[1]!.raw as string;
    expect(ajv.validate(order, JSON.parse(duplicate))).toBe(true);
  });

  test('then near misses, one keyword broken at a time, each confirmed invalid', () => {
    const validate = ajv.compile(order);
    const cases = fuzz.invalid(order, { count: 60 }).slice(6);
    expect(cases.length).toBeGreaterThanOrEqual(20);
    for (const entry of cases) {
      expect(parseToolArguments(entry.raw).ok, entry.description).toBe(true);
      expect(validate(entry.value), entry.description).toBe(false);
    }
    const descriptions = cases.map((entry) => entry.description);
    for (const expected of [
      'at .customer: the required property "customer" removed',
      'at .unexpected_property: an unknown property "unexpected_property" (additionalProperties is false)',
      'at .quantity: 0, below minimum 1',
      'at .quantity: 100, not below exclusiveMaximum 100',
      'at .quantity: 1.5 where the schema wants an integer',
      'at .customer.id: 0, not above exclusiveMinimum 0',
      'at .items: a duplicate item (uniqueItems)',
      'at .items: 0 items, below minItems 1',
    ]) {
      expect(descriptions, expected).toContain(expected);
    }
    expect(descriptions.some((description) => /^at \.items\[0\]: a string of 13 characters, past maxLength 12$/.test(description))).toBe(true);
    expect(descriptions.some((description) => /^at \.customer: \d properties, past maxProperties 2$/.test(description))).toBe(true);
    expect(fuzz.invalid(order, { count: 60 })).toEqual(fuzz.invalid(order, { count: 60 }));
  });
});

describe('fuzz.check', () => {
  const book: Tool = {
    name: 'book_order',
    description: 'Books an order.',
    sideEffect: 'local_mutation',
    parameters: order,
    run: (args) => ({ booked: (args as { items: string[] }).items.length }),
  };

  test('valid arguments pass acceptance and reach the tool; invalid ones are refused before it', async () => {
    const calls: unknown[] = [];
    const report = await fuzz.check([{ ...book, run: (args) => (calls.push(args), { ok: true }) }]);
    report.assertHolds();
    expect(report.tools).toEqual([{ tool: 'book_order', valid: 20, invalid: expect.any(Number), problems: [] }]);
    expect(report.tools[0]!.invalid).toBeGreaterThan(20);
    expect(calls).toHaveLength(20);
  });

  test('catches a tool that crashes on arguments its schema allows', async () => {
    // A null note is valid; this tool assumes a string.
    const fragile: Tool = {
      ...book,
      run: (args) => ({ shout: (args as { note?: string | null }).note?.toUpperCase() ?? (args as { note?: { length: number } }).note!.length }),
    };
    const report = await fuzz.check([fragile]);
    expect(report.problems.length).toBeGreaterThan(0);
    expect(report.problems[0]).toMatch(
      /^book_order: crashed on valid arguments \{.*\}: TypeError: Cannot read properties of (null|undefined) \(reading 'length'\)$/,
    );
    await expect(async () => report.assertHolds()).rejects.toThrow(FuzzCheckError);
  });

  test('reports a tool whose schema it cannot generate for, and fails when it checked nothing', async () => {
    const report = await fuzz.check([{ ...book, name: 'email', parameters: { type: 'object', properties: { to: { type: 'string', format: 'email' } } } }], {
      run: false,
    });
    expect(report.problems).toEqual([expect.stringContaining('email: The kit cannot generate values for "format"')]);
    expect(() => report.assertHolds()).toThrow('fuzz.check was given no tool it could generate for, so it checked nothing.');
  });
});
