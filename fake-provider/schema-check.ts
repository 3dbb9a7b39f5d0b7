import { canonicalJson, pointerToPath } from '../recordings/internal.js';
import { compileForeignSchema, createLenientValidator, type ValidateFunction } from '../schema/internal.js';

/** One way a value fails a schema: where in the value, and which schema rule. */
export interface SchemaMismatch {
  /** In the value, JSON access syntax: `.temp`; empty for the whole value. */
  valuePath: string;
  /** In the schema: `#/properties/temp/type`. */
  schemaPath: string;
  message: string;
}

const CACHE_LIMIT = 500;

/** Checks values against JSON Schemas written by others, compiling each schema once. */
export class SchemaCheck {
  #validator = createLenientValidator();
  #cache = new Map<string, ValidateFunction>();

  /** Every mismatch between the value and the schema; empty when it is valid. */
  check(schema: unknown, value: unknown): SchemaMismatch[] {
    const validate = this.#compile(schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => ({
      valuePath: pointerToPath(error.instancePath),
      schemaPath: error.schemaPath,
      message: error.message ?? 'is invalid',
    }));
  }

  #compile(schema: unknown): ValidateFunction {
    const id = canonicalJson(schema);
    let validate = this.#cache.get(id);
    if (validate === undefined) {
      validate = compileForeignSchema(this.#validator, schema);
      if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
      this.#cache.set(id, validate);
    }
    return validate;
  }
}

/** `at .temp (schema #/properties/temp/type): must be number` lines for a message. */
export function describeMismatches(mismatches: readonly SchemaMismatch[]): string {
  return mismatches
    .slice(0, 5)
    .map((mismatch) => `  at ${mismatch.valuePath === '' ? '(the whole value)' : mismatch.valuePath} (schema ${mismatch.schemaPath}): ${mismatch.message}`)
    .join('\n');
}
