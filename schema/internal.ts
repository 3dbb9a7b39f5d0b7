export {
  createValidator,
  createLenientValidator,
  compileForeignSchema,
  ownSchema,
  type OwnSchema,
  type ErrorObject,
  type ValidateFunction,
  type Validator,
} from './ajv.js';
export { nearestName, editDistance } from './nearest-name.js';
export { seededRandom, type Random } from './seeded-random.js';
export { generateValue, type GenerateOptions } from './generate-value/generate-value.js';
export { GenerationCache } from './generate-value/generation-cache.js';
export type { JsonSchema } from './generate-value/json-schema.js';
export { UnsupportedSchemaError } from './unsupported-schema-error.js';
