import { createValidator, type Validator } from '../ajv.js';
import { fitsNumberFormat, NUMBER_FORMATS, STRING_FORMATS } from '../string-formats.js';
import { Generation } from './generation.js';
import type { JsonSchema } from './json-schema.js';
import { prepareSchema } from './prepare-schema.js';

/**
 * How {@link generateValue} varies and bounds what it makes. The bounds are soft: a schema that
 * requires more (a `minItems` above `maxItems`, a required property past `maxDepth`) still gets a
 * valid value.
 */
export interface GenerateOptions {
  /**
   * Picks among the valid values: the same schema and seed always give the same value, and other
   * seeds generally give other values. An integer, taken modulo 2^32.
   * @default 0
   */
  seed?: number;
  /**
   * How deep optional content may nest. The top-level value is at depth 0, its properties and
   * items at 1, and so on. A value at this depth or deeper gets only what its schema requires:
   * required properties, `minItems` items, `null` when its type allows it, and an anyOf/oneOf
   * branch without `$ref` when there is one. This is what ends recursive schemas.
   * @default 8
   */
  maxDepth?: number;
  /** The most items an array gets, unless its schema's `minItems` or `prefixItems` needs more. @default 3 */
  maxItems?: number;
  /**
   * The longest free-form string, unless the schema's `minLength` needs more. Strings made for a
   * `format` (a date-time, a uuid) or demanded by a `pattern` may be longer; a schema's own
   * `maxLength` always holds.
   * @default 16
   */
  maxLength?: number;
  /**
   * Use a schema's own `examples[0]`, else its `default`, when that value is valid against it:
   * the author's example is the most plausible value there is. Turn off to explore values.
   * @default true
   */
  useExamples?: boolean;
}

/** {@link GenerateOptions} with every default filled in and checked. */
export interface ResolvedGenerateOptions {
  seed: number;
  maxDepth: number;
  maxItems: number;
  maxLength: number;
  useExamples: boolean;
}

/**
 * A JSON value valid against `schema`, made deterministically from `options.seed`.
 *
 * Values are readable rather than random-looking: strings come from the property name
 * (`city` → `"city-42"`), formats give real examples (`2024-05-17T14:30:00Z`, documentation IP
 * ranges, `example.com`), numbers stay in a small plausible range inside the bounds, and a
 * schema's own valid `examples[0]` or `default` is used as is.
 *
 * - Every required property is present; optional ones are present while the depth is below
 *   `maxDepth`. Arrays get 1 to `maxItems` items (within minItems/maxItems); tuples get their
 *   `prefixItems`.
 * - In `type` lists and `anyOf`/`oneOf`, the first choice that gives a valid value wins, with
 *   `null` last (first at `maxDepth`, to end recursion). A oneOf value matches exactly one branch.
 * - `pattern` text is written from the regex (classes, groups, alternation, quantifiers); a
 *   pattern using lookaround, backreferences or `\p{…}` is met only when one of the readable
 *   candidates happens to match it.
 * - What cannot be honoured is refused only when nothing avoids it: an optional property that
 *   cannot be made is left out, an anyOf branch skipped, an array past minItems cut short.
 *
 * Every value is validated with ajv (JSON Schema 2020-12, formats checked) before it is
 * returned; a value that would not pass is never returned — it throws instead. Draft-07 schemas
 * as the Vercel AI SDK sends them are read too: `definitions`, tuple `items` arrays with
 * `additionalItems`, and `$schema` (ignored).
 *
 * @throws {UnsupportedSchemaError} naming the keywords and the schema path it cannot honour.
 * @example generateValue({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }) // { city: 'city-42' }
 */
export function generateValue(schema: JsonSchema, options: GenerateOptions = {}): unknown {
  const resolved = resolveGenerateOptions(options);
  // Generation is deterministic, and compiling with ajv costs about a millisecond: the same
  // schema and options (a fake answering the same tool every turn) reuse the value made before.
  const memoKey = JSON.stringify([schema, resolved]);
  const remembered = generated.get(memoKey);
  if (remembered !== undefined) return structuredClone(remembered.value);
  const validator = generationValidator();
  try {
    const prepared = prepareSchema(schema, validator);
    const value = new Generation(prepared, resolved, validator).generateRoot();
    if (generated.size >= GENERATED_LIMIT) generated.clear();
    generated.set(memoKey, { value: structuredClone(value) });
    return value;
  } finally {
    // The validator is shared between calls; keep only its meta-schemas, formats and keywords.
    validator.removeSchema();
  }
}

const GENERATED_LIMIT = 200;
const generated = new Map<string, { value: unknown }>();

let sharedValidator: Validator | undefined;

function generationValidator(): Validator {
  if (sharedValidator) return sharedValidator;
  const validator = createValidator();
  // Valid JSON Schema that strict mode still refuses: a named property a patternProperties
  // pattern also matches. Set before anything is compiled; ajv reads its options at compile time.
  validator.opts.allowMatchingProperties = true;
  for (const [name, format] of STRING_FORMATS) validator.addFormat(name, { type: 'string', validate: format.isValid });
  for (const [name, format] of NUMBER_FORMATS) validator.addFormat(name, { type: 'number', validate: (value: number) => fitsNumberFormat(format, value) });
  validator.addKeyword('strict');
  sharedValidator = validator;
  return validator;
}

/** Fills in the defaults of {@link GenerateOptions}; throws a RangeError naming a bad value. */
function resolveGenerateOptions(options: GenerateOptions): ResolvedGenerateOptions {
  const count = (name: keyof GenerateOptions, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`Invalid generateValue option ${name} ${value}: expected a non-negative integer`);
    return value;
  };
  const seed = options.seed ?? 0;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`Invalid generateValue option seed ${seed}: expected an integer`);
  return {
    seed,
    maxDepth: count('maxDepth', options.maxDepth, 8),
    maxItems: count('maxItems', options.maxItems, 3),
    maxLength: count('maxLength', options.maxLength, 16),
    useExamples: options.useExamples ?? true,
  };
}
