// The one file that imports ajv. Every part that validates JSON gets its instance here.
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

// ajv is CommonJS; under NodeNext its class arrives on `.default` of the module object.
const Ajv2020 = (Ajv2020Module as unknown as { default: typeof Ajv2020Module.default }).default;

export type { ErrorObject, ValidateFunction };
export type Validator = InstanceType<typeof Ajv2020>;

/**
 * A fresh ajv instance for modeltape's own closed schemas: every error reported (not only the
 * first), with the failing schema attached so errors can name the fields that were allowed.
 */
export function createValidator(): Validator {
  return new Ajv2020({
    allErrors: true,
    verbose: true,
    strictSchema: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
  });
}
