import type { GenerationCache } from './generation-cache.js';
import { generateSite } from './generate-site.js';
import { Generation, type ResolvedGenerateOptions } from './generation.js';
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
  /**
   * What this call shares with the other calls given the same cache: the values made before (the
   * same schema and options give the same value, so it is reused). Each thing that generates again
   * and again (a fake provider, a policy check, a fuzz run) holds its own, so that what one of them
   * does cannot reach another.
   */
  cache: GenerationCache;
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
 * @example generateValue({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, { cache: new GenerationCache() }) // { city: 'city-42' }
 */
export function generateValue(schema: JsonSchema, options: GenerateOptions): unknown {
  const resolved = resolveGenerateOptions(options);
  const cache = options.cache;
  // Generation is deterministic, and compiling with ajv costs about a millisecond: the same
  // schema and options given the same cache (a fake answering the same tool every turn) reuse
  // the value made before.
  const memoKey = JSON.stringify([schema, resolved]);
  const remembered = cache.recall(memoKey);
  if (remembered !== undefined) return remembered.value;
  const validator = cache.validator();
  try {
    const prepared = prepareSchema(schema, validator);
    const value = new Generation(prepared, resolved, validator, generateSite).generateRoot();
    cache.remember(memoKey, value);
    return value;
  } finally {
    // The validator is shared by every cache; keep only its meta-schemas, formats and keywords.
    validator.removeSchema();
  }
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
