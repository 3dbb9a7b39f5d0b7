import { createValidator, type Validator } from '../ajv.js';
import { fitsNumberFormat, NUMBER_FORMATS, STRING_FORMATS } from '../string-formats.js';

/** How many values one cache remembers; past that it forgets them all and starts again. */
const REMEMBERED_LIMIT = 200;

/**
 * What calls of {@link generateValue} that are given the same cache share: the values already
 * made, by schema and options. Generation is
 * deterministic, so a remembered value is the value the call would make again.
 *
 * Create one per thing that generates values over and over — a fake provider answering the same
 * tool every turn, a policy check, a fuzz run — and pass it as `cache` to each of its calls.
 *
 * @example
 * const cache = new GenerationCache();
 * generateValue(schema, { seed: 1, cache }); // sets up ajv, makes the value
 * generateValue(schema, { seed: 1, cache }); // a copy of the same value, made before
 */
export class GenerationCache {
  readonly #values = new Map<string, { value: unknown }>();

  /**
   * The ajv instance generation checks values with: one for every cache, set up on first use.
   * It is configuration only (modeltape's formats and keywords): each call removes the schemas it
   * compiled before it returns, so nothing one cache's calls do reaches another's.
   */
  validator(): Validator {
    return generationValidator();
  }

  /** A copy of the value remembered under `key`, or undefined when there is none. */
  recall(key: string): { value: unknown } | undefined {
    const remembered = this.#values.get(key);
    return remembered === undefined ? undefined : { value: structuredClone(remembered.value) };
  }

  /** Remembers a copy of `value` under `key`. */
  remember(key: string, value: unknown): void {
    if (this.#values.size >= REMEMBERED_LIMIT) this.#values.clear();
    this.#values.set(key, { value: structuredClone(value) });
  }
}

let shared: Validator | undefined;

// Setting ajv up compiles its meta-schema, about 35 ms: paid once per process, not per cache.
function generationValidator(): Validator {
  if (shared) return shared;
  const validator = createValidator();
  // Valid JSON Schema that strict mode still refuses: a named property a patternProperties
  // pattern also matches. Set before anything is compiled; ajv reads its options at compile time.
  validator.opts.allowMatchingProperties = true;
  for (const [name, format] of STRING_FORMATS) validator.addFormat(name, { type: 'string', validate: format.isValid });
  for (const [name, format] of NUMBER_FORMATS) validator.addFormat(name, { type: 'number', validate: (value: number) => fitsNumberFormat(format, value) });
  validator.addKeyword('strict');
  shared = validator;
  return validator;
}
