import { accessor } from './access-path.js';
import { isSchemaObject, type JsonSchema, type SchemaObject } from './json-schema.js';

// Which JSON Schema keywords the generator honours, refuses or passes over, and where subschemas sit.

/** Keywords that describe, contain definitions, or are harmless flags: nothing to generate. */
export const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  '$anchor',
  '$dynamicAnchor',
  '$vocabulary',
  '$defs',
  'definitions',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  // OpenAI's structured-output flag, sometimes left inside the parameters schema.
  'strict',
]);

/** Keywords the generator makes values for. */
export const HONOURED = new Set([
  'type',
  'enum',
  'const',
  '$ref',
  'allOf',
  'anyOf',
  'oneOf',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'dependentRequired',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
]);

/** JSON Schema keywords ajv knows but the generator cannot honour; refused when generation reaches them. */
export const REFUSED = new Set([
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependencies',
  'contains',
  'minContains',
  'maxContains',
  'unevaluatedProperties',
  'unevaluatedItems',
  '$dynamicRef',
]);

/** Keywords whose value is a subschema, a list of them, or a map of them. */
export const SUBSCHEMA = new Set([
  'additionalProperties',
  'propertyNames',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]);
export const SUBSCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
export const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords that hint at a type when a schema has no `type`. */
export const OBJECT_KEYWORDS = [
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'dependentRequired',
];
export const ARRAY_KEYWORDS = ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems'];
export const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern'];
export const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
export const SCALAR_TYPES = ['boolean', 'integer', 'number', 'string'];
export const FALLBACK_TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'object', 'array'];

/** Whether `schema` has any keyword besides annotations and `ignored`. */
export function hasConstraints(schema: SchemaObject, ignored: readonly string[]): boolean {
  return Object.keys(schema).some((keyword) => !ANNOTATIONS.has(keyword) && !ignored.includes(keyword));
}

/** A copy of `schema` without `keywords`. */
export function without(schema: SchemaObject, keywords: readonly string[]): SchemaObject {
  return Object.fromEntries(Object.entries(schema).filter(([keyword]) => !keywords.includes(keyword)));
}

/** The subschemas that apply inside `schema`, with their paths; definitions apply only through `$ref`. */
export function childSchemasWithPaths(schema: SchemaObject, path: string): Array<[JsonSchema, string]> {
  const children: Array<[JsonSchema, string]> = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if (SUBSCHEMA.has(keyword)) children.push([value as JsonSchema, `${path}.${keyword}`]);
    else if (SUBSCHEMA_LISTS.has(keyword) && Array.isArray(value))
      (value as JsonSchema[]).forEach((child, index) => children.push([child, `${path}.${keyword}[${index}]`]));
    else if ((SUBSCHEMA_MAPS.has(keyword) || keyword === 'dependencies') && keyword !== '$defs' && keyword !== 'definitions' && isSchemaObject(value)) {
      for (const [key, child] of Object.entries(value)) if (!Array.isArray(child)) children.push([child as JsonSchema, `${path}.${keyword}${accessor(key)}`]);
    }
  }
  return children;
}
