import type { Validator } from '../ajv.js';
import { NUMBER_FORMATS, STRING_FORMATS } from '../string-formats.js';
import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import { accessor, accessPath, unescapePointerSegment } from './access-path.js';
import { hasOwn, isSchemaObject, type JsonSchema, type SchemaObject } from './json-schema.js';
import { resolvePrepared, rewriteReference, ROOT_ID } from './prepared-reference.js';
import { ANNOTATIONS, childSchemasWithPaths, HONOURED, REFUSED, SUBSCHEMA, SUBSCHEMA_LISTS, SUBSCHEMA_MAPS } from './schema-keywords.js';

/**
 * A copy of `schema` with `$schema` dropped, draft-07 tuples rewritten as `prefixItems`, and
 * every `$ref` made absolute. Refuses unknown keywords, unknown formats, remote references and
 * schemas ajv finds invalid, before any value is made.
 */
export function prepareSchema(schema: JsonSchema, validator: Validator): JsonSchema {
  const walk = (node: unknown, path: string, isRoot: boolean): unknown => {
    if (!isSchemaObject(node)) return node;
    const entries: Array<[string, unknown]> = [];
    const unknown: string[] = [];
    for (const [keyword, value] of Object.entries(node)) {
      // `$schema` is read as 2020-12 regardless; `$anchor` only names targets for "#name"
      // references, which are not followed (and strict ajv does not know the keyword).
      if (keyword === '$schema' || keyword === '$anchor') continue;
      if (keyword === '$id') {
        if (!isRoot) throw new UnsupportedSchemaError(['$id'], path, 'a nested "$id" changes how references resolve, which the generator does not follow');
        continue;
      }
      if (keyword === '$ref') entries.push([keyword, rewriteReference(schema, value, path)]);
      else if (keyword === 'items' && Array.isArray(value)) {
        // Draft-07 tuple: `items` is the prefix, `additionalItems` the rest.
        entries.push(['prefixItems', value.map((item, index) => walk(item, `${path}.items[${index}]`, false))]);
        if (hasOwn(node, 'additionalItems')) entries.push(['items', walk(node.additionalItems, `${path}.additionalItems`, false)]);
      } else if (keyword === 'additionalItems') {
        // Only meaningful beside an array `items` (handled above); ignored otherwise, as in draft-07.
      } else if (SUBSCHEMA.has(keyword)) entries.push([keyword, walk(value, `${path}.${keyword}`, false)]);
      else if (SUBSCHEMA_LISTS.has(keyword) && Array.isArray(value))
        entries.push([keyword, value.map((item, index) => walk(item, `${path}.${keyword}[${index}]`, false))]);
      else if ((SUBSCHEMA_MAPS.has(keyword) || keyword === 'dependencies') && isSchemaObject(value)) {
        if (keyword === 'patternProperties') for (const pattern of Object.keys(value)) checkRegex(pattern, keyword, path);
        // `dependencies` mixes property lists and schemas; only the schemas are walked.
        entries.push([
          keyword,
          Object.fromEntries(
            Object.entries(value).map(([key, item]) => [key, Array.isArray(item) ? item : walk(item, `${path}.${keyword}${accessor(key)}`, false)]),
          ),
        ]);
      } else if (HONOURED.has(keyword) || REFUSED.has(keyword) || ANNOTATIONS.has(keyword)) {
        if (keyword === 'format' && typeof value === 'string') checkFormat(value, node, path, validator);
        if (keyword === 'pattern' && typeof value === 'string') checkRegex(value, 'pattern', path);
        entries.push([keyword, value]);
      } else unknown.push(keyword);
    }
    if (unknown.length > 0) {
      const they =
        unknown.length === 1
          ? `"${unknown[0]}" is not a JSON Schema keyword`
          : `${unknown.map((keyword) => `"${keyword}"`).join(', ')} are not JSON Schema keywords`;
      throw new UnsupportedSchemaError(unknown, path, `${they}, so it cannot tell what ${unknown.length === 1 ? 'it requires' : 'they require'}`);
    }
    if (isRoot) entries.push(['$id', ROOT_ID]);
    return Object.fromEntries(entries);
  };
  const prepared = walk(schema, '', true) as JsonSchema;
  if (!validator.validateSchema(prepared)) {
    const error = validator.errors?.[0];
    const segments = (error?.instancePath ?? '').split('/').slice(1).map(unescapePointerSegment);
    while (segments.length > 0 && /^\d+$/.test(segments.at(-1)!)) segments.pop();
    const keyword = segments.pop();
    throw new UnsupportedSchemaError(
      keyword === undefined ? [] : [keyword],
      accessPath(segments),
      `the schema is invalid: ${keyword ?? 'it'} ${error?.message ?? 'does not follow JSON Schema 2020-12'}`,
    );
  }
  refuseEndlessSelfReference(prepared);
  try {
    validator.compile(prepared);
  } catch (error) {
    throw new UnsupportedSchemaError([], '', `ajv cannot compile the schema (${(error as Error).message})`, { cause: error });
  }
  return prepared;
}

function checkRegex(pattern: string, keyword: string, path: string): void {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    throw new UnsupportedSchemaError([keyword], path, `${JSON.stringify(pattern)} is not a valid regular expression (${(error as Error).message})`);
  }
}

/**
 * Refuses a schema that comes back to itself without descending into a property or an item,
 * like `{ "anyOf": [{ "$ref": "#" }] }`: checking a value against it never ends, in ajv or anywhere.
 */
function refuseEndlessSelfReference(root: JsonSchema): void {
  const acyclic = new Set<object>();
  const queued = new Set<object>();
  const starts: Array<[unknown, string]> = [[root, '']];
  // Depth-first along the edges that stay on the same value; `active` is the current chain.
  const search = (node: unknown, path: string, active: Set<object>): void => {
    if (!isSchemaObject(node) || acyclic.has(node)) return;
    active.add(node);
    if (typeof node.$ref === 'string') {
      // Only a reference can close a loop: everything else is a tree.
      const { target, path: targetPath } = resolvePrepared(root, node.$ref);
      if (isSchemaObject(target) && active.has(target)) {
        throw new UnsupportedSchemaError(
          ['$ref'],
          path,
          `the reference to ${targetPath || 'the root'} leads back to a schema the same value is already inside, so checking a value never ends`,
        );
      }
      search(target, targetPath, active);
    }
    for (const keyword of ['allOf', 'anyOf', 'oneOf'])
      if (Array.isArray(node[keyword])) (node[keyword] as unknown[]).forEach((child, index) => search(child, `${path}.${keyword}[${index}]`, active));
    for (const keyword of ['not', 'if', 'then', 'else']) if (hasOwn(node, keyword)) search(node[keyword], `${path}.${keyword}`, active);
    if (isSchemaObject(node.dependentSchemas))
      for (const [key, child] of Object.entries(node.dependentSchemas)) search(child, `${path}.dependentSchemas${accessor(key)}`, active);
    active.delete(node);
    acyclic.add(node);
    // A property or an item is another value: searched later, from a fresh chain.
    for (const [child, childPath] of childSchemasWithPaths(node, path)) {
      if (isSchemaObject(child) && !queued.has(child)) {
        queued.add(child);
        starts.push([child, childPath]);
      }
    }
  };
  for (let index = 0; index < starts.length; index++) search(starts[index]![0], starts[index]![1], new Set());
}

function checkFormat(format: string, node: SchemaObject, path: string, validator: Validator): void {
  if (STRING_FORMATS.has(format) || NUMBER_FORMATS.has(format)) return;
  // zod writes formats like "nanoid" or "cuid" together with the pattern that defines them.
  if (typeof node.pattern === 'string') {
    if (!validator.formats[format]) validator.addFormat(format, true);
    return;
  }
  const known = [...STRING_FORMATS.keys(), ...NUMBER_FORMATS.keys()].join(', ');
  throw new UnsupportedSchemaError(['format'], path, `the format "${format}" is not one it can make values for (${known})`);
}
