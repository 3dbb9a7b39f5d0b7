// The one file that imports ajv. Every part that validates JSON gets its instance here.
import Ajv2020Module from 'ajv/dist/2020.js';
import type { Ajv2020 as Ajv2020Class, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

// ajv is CommonJS; under NodeNext its class arrives on `.default` of the module object. The types
// name the class by its named export, which reads the same under every moduleResolution: a type
// reached through the default import would differ under `bundler`, in the published .d.ts too.
const Ajv2020: typeof Ajv2020Class = (Ajv2020Module as unknown as { default: typeof Ajv2020Class }).default;

export type { ErrorObject, ValidateFunction };
export type Validator = Ajv2020Class;

/**
 * A fresh ajv instance for modeltape's own closed schemas: every error reported (not only the
 * first), with the failing schema attached so errors can name the fields that were allowed.
 */
export function createValidator(): Validator {
  return new Ajv2020(OWN_OPTIONS);
}

const OWN_OPTIONS = {
  allErrors: true,
  verbose: true,
  strictSchema: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  allowUnionTypes: true,
} as const;

/** One of modeltape's own schemas, compiled when first used. */
export interface OwnSchema {
  /** Undefined when `value` fits the schema; else every error ajv found. */
  errorsOf(value: unknown): ErrorObject[] | undefined;
}

let own: Validator | undefined;

/**
 * One of modeltape's own closed schemas (the tape, the config file, the script file), compiled
 * on first use in one shared instance, not when its module loads: compiling ajv's meta-schema and
 * every schema at import cost each test file that imports modeltape tens of milliseconds, for
 * files it may never read. The meta-schema check is skipped for these fixed schemas (their tests
 * compile each one).
 */
export function ownSchema(schema: object): OwnSchema {
  let validate: ValidateFunction | undefined;
  return {
    errorsOf(value) {
      own ??= new Ajv2020({ ...OWN_OPTIONS, validateSchema: false });
      validate ??= own.compile(schema);
      return validate(value) ? undefined : (validate.errors ?? []);
    },
  };
}

/**
 * An ajv instance for schemas written by others (tool parameters, response formats): unknown
 * keywords are ignored rather than refused, formats are checked where ajv knows them, and the
 * `$schema` of draft-07 schemas (as zod-to-json-schema writes them) is accepted.
 */
export function createLenientValidator(): Validator {
  const validator = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, allowUnionTypes: true });
  return validator;
}

/**
 * Compiles a schema someone else wrote. A draft-07 `$schema` (which this 2020-12 instance has
 * no meta-schema for) is set aside; `definitions` and `$ref: "#/definitions/…"` work as they are.
 */
export function compileForeignSchema(validator: Validator, schema: unknown): ValidateFunction {
  if (typeof schema === 'object' && schema !== null && !Array.isArray(schema) && '$schema' in schema) {
    const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
    return validator.compile(rest);
  }
  return validator.compile(schema as object | boolean);
}
