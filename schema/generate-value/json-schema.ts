/** A JSON Schema: an object of keywords, `true` (anything is valid) or `false` (nothing is). */
export type JsonSchema = boolean | { [keyword: string]: unknown };

/** A JSON Schema that is an object of keywords (not `true` or `false`). */
export type SchemaObject = { [keyword: string]: unknown };

/** Whether `value` is an object of keywords rather than a boolean schema, an array or a scalar. */
export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `object` has `key` itself; `in` would also find `__proto__` and inherited names. */
export function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}
