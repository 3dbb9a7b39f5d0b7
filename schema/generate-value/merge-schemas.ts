import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import type { Generation, ReferenceEntry, Site } from './generation.js';
import { hasOwn, isSchemaObject, type JsonSchema, type SchemaObject } from './json-schema.js';
import { greatestCommonDivisor } from './number-candidates.js';
import { stableKey } from './stable-key.js';
import { unique } from './unique.js';

/** The most anyOf/oneOf combinations an allOf may multiply into. */
const COMBINATION_LIMIT = 64;

/** The value for several schemas at once (an `allOf`, a `$ref` with siblings, a branch with its schema's other keywords). */
export function generateMerged(generation: Generation, parts: readonly JsonSchema[], site: Site): unknown {
  const { schema, references } = mergeSchemas(generation, parts, site);
  return generation.generate({ ...site, schema, references });
}

/**
 * One schema to generate from for the conjunction of `parts`, with their `$ref`s and `allOf`s
 * inlined. It guides generation only — the site's check still holds every part — so where two
 * parts disagree in a way it cannot combine (two patterns), it keeps the first.
 */
export function mergeSchemas(generation: Generation, parts: readonly JsonSchema[], site: Site): { schema: JsonSchema; references: ReferenceEntry[] } {
  const references = [...site.references];
  const objects: SchemaObject[] = [];
  let impossible = false;
  const visit = (part: JsonSchema): void => {
    if (part === true) return;
    if (part === false) {
      impossible = true;
      return;
    }
    if (typeof part.$ref === 'string') {
      const { target, path } = generation.resolve(part.$ref);
      // Entered already for this value: the conjunction with itself adds nothing.
      if (!generation.alreadyEntered(site, references, target, path)) {
        references.push({ target, depth: site.depth });
        visit(target);
      }
    }
    if (Array.isArray(part.allOf)) for (const item of part.allOf as JsonSchema[]) visit(item);
    objects.push(part);
  };
  for (const part of parts) visit(part);
  if (impossible) return { schema: false, references };
  const key = objects.map((object) => generation.identity(object)).join(',');
  let schema = generation.merges.get(key);
  if (schema === undefined) {
    schema = combine(generation, objects, site);
    generation.merges.set(key, schema);
  }
  return { schema, references };
}

function combine(generation: Generation, objects: readonly SchemaObject[], site: Site): JsonSchema {
  const result: SchemaObject = {};
  const properties = new Map<string, JsonSchema[]>();
  const patternProperties = new Map<string, JsonSchema[]>();
  const lists = { additionalProperties: [] as JsonSchema[], propertyNames: [] as JsonSchema[], items: [] as JsonSchema[] };
  const prefixItems: JsonSchema[][] = [];
  const alternatives: JsonSchema[][] = [];
  const required = new Set<string>();
  const dependentRequired = new Map<string, Set<string>>();
  const contradiction = (keyword: string, detail: string): UnsupportedSchemaError =>
    new UnsupportedSchemaError([keyword], site.path, `the parts of this schema contradict each other: ${detail}`);
  for (const object of objects) {
    for (const [keyword, value] of Object.entries(object)) {
      switch (keyword) {
        case '$ref':
        case 'allOf':
        case '$id':
        case '$defs':
        case 'definitions':
          break;
        case 'type': {
          const merged = result.type === undefined ? asList(value) : intersectTypes(asList(result.type), asList(value));
          if (merged.length === 0)
            throw contradiction('type', `no type is allowed by all of ${JSON.stringify(objects.map((part) => part.type).filter(Boolean))}`);
          result.type = merged;
          break;
        }
        case 'enum': {
          const merged =
            result.enum === undefined
              ? (value as unknown[])
              : (result.enum as unknown[]).filter((item) => (value as unknown[]).some((other) => stableKey(other) === stableKey(item)));
          if (merged.length === 0) throw contradiction('enum', 'no value is in every enum');
          result.enum = merged;
          break;
        }
        case 'const':
          if (hasOwn(result, 'const') && stableKey(result.const) !== stableKey(value))
            throw contradiction('const', `${JSON.stringify(result.const)} is not ${JSON.stringify(value)}`);
          result.const = value;
          break;
        case 'minimum':
        case 'exclusiveMinimum':
        case 'minLength':
        case 'minItems':
        case 'minProperties':
          result[keyword] = typeof result[keyword] === 'number' ? Math.max(result[keyword] as number, value as number) : value;
          break;
        case 'maximum':
        case 'exclusiveMaximum':
        case 'maxLength':
        case 'maxItems':
        case 'maxProperties':
          result[keyword] = typeof result[keyword] === 'number' ? Math.min(result[keyword] as number, value as number) : value;
          break;
        case 'multipleOf':
          result.multipleOf = result.multipleOf === undefined ? value : commonMultiple(result.multipleOf as number, value as number, site);
          break;
        case 'uniqueItems':
          result.uniqueItems = result.uniqueItems === true || value === true;
          break;
        case 'required':
          for (const key of value as string[]) required.add(key);
          break;
        case 'dependentRequired':
          for (const [key, needs] of Object.entries(value as Record<string, string[]>))
            for (const need of needs) (dependentRequired.get(key) ?? dependentRequired.set(key, new Set()).get(key)!).add(need);
          break;
        case 'properties':
        case 'patternProperties': {
          const target = keyword === 'properties' ? properties : patternProperties;
          for (const [key, child] of Object.entries(value as Record<string, JsonSchema>)) (target.get(key) ?? target.set(key, []).get(key)!).push(child);
          break;
        }
        case 'additionalProperties':
        case 'propertyNames':
        case 'items':
          lists[keyword].push(value as JsonSchema);
          break;
        case 'prefixItems':
          (value as JsonSchema[]).forEach((item, index) => (prefixItems[index] ??= []).push(item));
          break;
        case 'anyOf':
        case 'oneOf':
          alternatives.push(value as JsonSchema[]);
          break;
        default:
          // pattern, format, annotations, refused keywords: the first one guides generation.
          if (!hasOwn(result, keyword)) result[keyword] = value;
      }
    }
  }
  // A part's additionalProperties also governs the properties that other parts declare.
  for (const object of objects) {
    const restriction = object.additionalProperties as JsonSchema | undefined;
    if (restriction === undefined || restriction === true) continue;
    const own = isSchemaObject(object.properties) ? object.properties : {};
    const patterns = isSchemaObject(object.patternProperties) ? Object.keys(object.patternProperties) : [];
    for (const [key, list] of properties) if (!hasOwn(own, key) && !patterns.some((pattern) => new RegExp(pattern, 'u').test(key))) list.push(restriction);
  }
  if (properties.size > 0) result.properties = Object.fromEntries([...properties].map(([key, list]) => [key, conjunction(generation, list)]));
  if (patternProperties.size > 0)
    result.patternProperties = Object.fromEntries([...patternProperties].map(([key, list]) => [key, conjunction(generation, list)]));
  for (const [keyword, list] of Object.entries(lists)) if (list.length > 0) result[keyword] = conjunction(generation, list);
  if (prefixItems.length > 0) result.prefixItems = prefixItems.map((list) => conjunction(generation, list));
  if (required.size > 0) result.required = [...required];
  if (dependentRequired.size > 0) result.dependentRequired = Object.fromEntries([...dependentRequired].map(([key, needs]) => [key, [...needs]]));
  if (alternatives.length === 1) result.anyOf = alternatives[0];
  else if (alternatives.length > 1) {
    const size = alternatives.reduce((total, list) => total * list.length, 1);
    if (size > COMBINATION_LIMIT)
      throw new UnsupportedSchemaError(
        ['anyOf', 'oneOf'],
        site.path,
        `its alternatives combine into ${size} cases, more than the ${COMBINATION_LIMIT} it tries`,
      );
    result.anyOf = alternatives
      .reduce<JsonSchema[][]>((combinations, list) => combinations.flatMap((combination) => list.map((branch) => [...combination, branch])), [[]])
      .map((combination) => conjunction(generation, combination));
  }
  return result;
}

/** One schema for "all of these", keeping object identity stable so ajv compiles it once. */
export function conjunction(generation: Generation, list: readonly JsonSchema[]): JsonSchema {
  if (list.includes(false)) return false;
  const meaningful = list.filter((schema) => schema !== true);
  if (meaningful.length === 0) return true;
  if (meaningful.length === 1) return meaningful[0]!;
  const key = `all:${meaningful.map((schema) => generation.identity(schema as SchemaObject)).join(',')}`;
  let schema = generation.merges.get(key);
  if (schema === undefined) {
    schema = { allOf: [...meaningful] };
    generation.merges.set(key, schema);
  }
  return schema;
}

function asList(value: unknown): string[] {
  return Array.isArray(value) ? (value as string[]) : [value as string];
}

function intersectTypes(a: readonly string[], b: readonly string[]): string[] {
  const allows = (list: readonly string[], type: string): boolean => list.includes(type) || (type === 'integer' && list.includes('number'));
  return unique([...a.filter((type) => allows(b, type)), ...b.filter((type) => allows(a, type))]);
}

function commonMultiple(a: number, b: number, site: Site): number {
  const [small, large] = a < b ? [a, b] : [b, a];
  if (Number.isInteger(large / small)) return large;
  if (Number.isInteger(a) && Number.isInteger(b)) return (a / greatestCommonDivisor(a, b)) * b;
  throw new UnsupportedSchemaError(['multipleOf'], site.path, `it cannot find a common multiple of ${a} and ${b}`);
}
