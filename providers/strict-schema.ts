import { isRecord } from '../core/internal.js';

/**
 * What a provider's strict mode (constrained decoding) accepts as a JSON Schema. A schema outside
 * it is refused with the provider's own 400 before any answer, as the real provider refuses it.
 *
 * OpenAI (Structured Outputs, strict function tools): the root is an object (not anyOf); every
 * object sets `additionalProperties: false` and lists every property in `required`; only the
 * supported keywords appear; at most 10 levels of nesting, 5,000 properties, 1,000 enum values
 * and 120,000 characters of names and values in all.
 *
 * Anthropic (structured outputs, strict tools): every object sets `additionalProperties: false`;
 * conditional and negated schemas are not supported.
 */

/** Where in the schema, as OpenAI writes it: `('properties', 'location', 'items')`. */
export interface SchemaViolation {
  context: string[];
  message: string;
}

const ANNOTATIONS = new Set(['$schema', '$id', '$comment', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
const OPENAI_SUPPORTED = new Set([
  ...ANNOTATIONS,
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'pattern',
  'format',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
const OPENAI_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const ANTHROPIC_UNSUPPORTED = ['not', 'if', 'then', 'else', 'dependentSchemas', 'dependentRequired', 'patternProperties', 'unevaluatedProperties'];

export const OPENAI_STRICT_LIMITS = { depth: 10, properties: 5000, enumValues: 1000, characters: 120_000 };

/** The first rule of OpenAI's strict mode the schema breaks, or undefined when it is accepted. */
export function checkOpenAiStrictSchema(schema: unknown): SchemaViolation | undefined {
  if (!isRecord(schema)) return { context: [], message: 'schema must be a JSON Schema object' };
  if (schema.anyOf !== undefined && schema.type === undefined)
    return { context: [], message: "schema must be a JSON Schema of 'type: \"object\"', got 'anyOf'." };
  if (schema.type !== 'object')
    return { context: [], message: `schema must be a JSON Schema of 'type: "object"', got 'type: ${JSON.stringify(schema.type ?? null)}'.` };
  const totals = { properties: 0, enumValues: 0, characters: 0 };
  const violation = walkOpenAi(schema, [], 1, totals);
  if (violation) return violation;
  if (totals.properties > OPENAI_STRICT_LIMITS.properties)
    return { context: [], message: `the schema has ${totals.properties} object properties in total; at most ${OPENAI_STRICT_LIMITS.properties} are allowed.` };
  if (totals.enumValues > OPENAI_STRICT_LIMITS.enumValues)
    return { context: [], message: `the schema has ${totals.enumValues} enum values in total; at most ${OPENAI_STRICT_LIMITS.enumValues} are allowed.` };
  if (totals.characters > OPENAI_STRICT_LIMITS.characters) {
    return {
      context: [],
      message: `the total string length of property names, definition names, enum values and const values is ${totals.characters}; at most ${OPENAI_STRICT_LIMITS.characters} is allowed.`,
    };
  }
  return undefined;
}

function walkOpenAi(
  schema: unknown,
  context: string[],
  depth: number,
  totals: { properties: number; enumValues: number; characters: number },
): SchemaViolation | undefined {
  if (schema === true || schema === false || !isRecord(schema)) return undefined;
  if (depth > OPENAI_STRICT_LIMITS.depth) return { context, message: `the schema nests more than ${OPENAI_STRICT_LIMITS.depth} levels deep.` };
  for (const keyword of Object.keys(schema)) {
    if (!OPENAI_SUPPORTED.has(keyword)) return { context, message: `'${keyword}' is not permitted.` };
  }
  if (typeof schema.format === 'string' && !OPENAI_FORMATS.has(schema.format))
    return { context, message: `'format' value '${schema.format}' is not supported; use one of ${[...OPENAI_FORMATS].join(', ')}.` };
  if (Array.isArray(schema.enum)) {
    totals.enumValues += schema.enum.length;
    for (const value of schema.enum) totals.characters += String(value).length;
  }
  if (schema.const !== undefined) totals.characters += String(schema.const).length;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object') || isRecord(schema.properties)) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    const names = Object.keys(properties);
    totals.properties += names.length;
    for (const name of names) totals.characters += name.length;
    if (schema.additionalProperties !== false) return { context, message: "'additionalProperties' is required to be supplied and to be false." };
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
    const missing = names.filter((name) => !required.includes(name));
    if (missing.length > 0) {
      return { context, message: `'required' is required to be supplied and to be an array including every key in properties. Missing '${missing[0]}'.` };
    }
    for (const name of names) {
      const violation = walkOpenAi(properties[name], [...context, 'properties', name], depth + 1, totals);
      if (violation) return violation;
    }
  }
  if (schema.items !== undefined) {
    const violation = walkOpenAi(schema.items, [...context, 'items'], depth + 1, totals);
    if (violation) return violation;
  }
  if (Array.isArray(schema.anyOf)) {
    for (const [index, branch] of schema.anyOf.entries()) {
      const violation = walkOpenAi(branch, [...context, 'anyOf', String(index)], depth, totals);
      if (violation) return violation;
    }
  }
  for (const definitions of ['$defs', 'definitions'] as const) {
    const defined = schema[definitions];
    if (!isRecord(defined)) continue;
    for (const [name, definition] of Object.entries(defined)) {
      totals.characters += name.length;
      const violation = walkOpenAi(definition, [...context, definitions, name], depth, totals);
      if (violation) return violation;
    }
  }
  return undefined;
}

/** The first rule of Anthropic's strict mode the schema breaks, or undefined when it is accepted. */
export function checkAnthropicStrictSchema(schema: unknown, context: string[] = []): SchemaViolation | undefined {
  if (schema === true || schema === false || !isRecord(schema)) return undefined;
  for (const keyword of ANTHROPIC_UNSUPPORTED)
    if (schema[keyword] !== undefined) return { context, message: `'${keyword}' is not supported in structured outputs.` };
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if ((types.includes('object') || isRecord(schema.properties)) && schema.additionalProperties !== false) {
    return { context, message: "For 'object' type, 'additionalProperties' must be explicitly set to false" };
  }
  const children: Array<[string[], unknown]> = [];
  if (isRecord(schema.properties)) for (const [name, child] of Object.entries(schema.properties)) children.push([[...context, 'properties', name], child]);
  if (schema.items !== undefined) children.push([[...context, 'items'], schema.items]);
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) branches.forEach((branch, index) => children.push([[...context, keyword, String(index)], branch]));
  }
  for (const definitions of ['$defs', 'definitions'] as const) {
    const defined = schema[definitions];
    if (isRecord(defined)) for (const [name, child] of Object.entries(defined)) children.push([[...context, definitions, name], child]);
  }
  for (const [childContext, child] of children) {
    const violation = checkAnthropicStrictSchema(child, childContext);
    if (violation) return violation;
  }
  return undefined;
}

/** `('properties', 'location')`, as OpenAI prints a context; `()` for the root. */
export function formatContext(context: readonly string[]): string {
  if (context.length === 0) return '()';
  if (context.length === 1) return `('${context[0]}',)`;
  return `(${context.map((part) => `'${part}'`).join(', ')})`;
}
