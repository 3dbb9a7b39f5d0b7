export { createValidator, type ErrorObject, type ValidateFunction, type Validator } from './ajv.js';
export { nearestName, editDistance } from './nearest-name.js';
