import type { ErrorObject } from '../ajv.js';
import { NUMBER_FORMATS, STRING_FORMATS } from '../string-formats.js';
import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import { accessPath, unescapePointerSegment } from './access-path.js';
import { generateAlternative } from './generate-alternative.js';
import { generateArray } from './generate-array.js';
import { generateObject } from './generate-object.js';
import { generateReference } from './generate-reference.js';
import type { Generation, Site } from './generation.js';
import { hasOwn, type SchemaObject } from './json-schema.js';
import { generateMerged } from './merge-schemas.js';
import { numberCandidates } from './number-candidates.js';
import { ARRAY_KEYWORDS, FALLBACK_TYPES, NUMBER_KEYWORDS, OBJECT_KEYWORDS, REFUSED, SCALAR_TYPES, STRING_KEYWORDS } from './schema-keywords.js';
import { stableKey } from './stable-key.js';
import { stringCandidates } from './string-candidates.js';
import { unique } from './unique.js';

/** How many candidates of one type are checked before giving up on it. */
const CANDIDATE_LIMIT = 24;

/**
 * The value for one site: the author's valid example when allowed, else by the schema's shape —
 * a `$ref`, an `allOf`, an `anyOf`/`oneOf`, a `const`/`enum`, or the first type whose candidates
 * give a value valid against the site's check.
 */
export function generateSite(generation: Generation, site: Site): unknown {
  if (site.schema === false) throw new UnsupportedSchemaError([], site.path, 'the schema is `false`, which no value satisfies');
  const schema: SchemaObject = site.schema === true ? {} : site.schema;
  const refused = Object.keys(schema).filter((keyword) => REFUSED.has(keyword));
  if (refused.length > 0)
    throw new UnsupportedSchemaError(refused, site.path, `the generator does not make values for ${refused.map((keyword) => `"${keyword}"`).join(', ')}`);
  if (generation.options.useExamples) {
    const example = authorExample(generation, schema, site);
    if (example.found) return example.value;
  }
  if (typeof schema.$ref === 'string') return generateReference(generation, schema, site);
  if (Array.isArray(schema.allOf)) return generateMerged(generation, [schema], site);
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) return generateAlternative(generation, schema, site);
  if (hasOwn(schema, 'const') || Array.isArray(schema.enum)) return pickListed(generation, schema, site);
  return generateTyped(generation, schema, site);
}

function authorExample(generation: Generation, schema: SchemaObject, site: Site): { found: true; value: unknown } | { found: false } {
  const candidates: unknown[] = [];
  if (Array.isArray(schema.examples) && schema.examples.length > 0) candidates.push(schema.examples[0]);
  if (hasOwn(schema, 'default')) candidates.push(schema.default);
  for (const candidate of candidates) {
    if (site.avoid?.has(stableKey(candidate))) continue;
    if (generation.errors(site.check, candidate) === undefined) return { found: true, value: structuredClone(candidate) };
  }
  return { found: false };
}

function pickListed(generation: Generation, schema: SchemaObject, site: Site): unknown {
  const keyword = hasOwn(schema, 'const') ? 'const' : 'enum';
  const listed = keyword === 'const' ? [schema.const] : (schema.enum as unknown[]);
  const valid = listed.filter((value) => !site.avoid?.has(stableKey(value)) && generation.errors(site.check, value) === undefined);
  if (valid.length === 0) {
    const used = listed.some((value) => site.avoid?.has(stableKey(value)));
    throw new UnsupportedSchemaError(
      used ? [keyword, 'uniqueItems'] : [keyword],
      site.path,
      used ? `every ${keyword} value that is valid is already in the array` : `no ${keyword} value is valid against the rest of the schema`,
    );
  }
  return structuredClone(generation.random.pick(valid));
}

function generateTyped(generation: Generation, schema: SchemaObject, site: Site): unknown {
  let failure: UnsupportedSchemaError | undefined;
  for (const type of typeOrder(generation, schema, site)) {
    let tried = 0;
    let avoided = 0;
    try {
      for (const candidate of candidates(generation, type, schema, site)) {
        if (++tried > CANDIDATE_LIMIT) break;
        if (site.avoid?.has(stableKey(candidate))) {
          avoided++;
          continue;
        }
        const errors = generation.errors(site.check, candidate);
        if (errors === undefined) return candidate;
        failure ??= invalidValue(site, errors, candidate);
      }
      if (avoided > 0) failure ??= new UnsupportedSchemaError(['uniqueItems'], site.path, 'every value it could make is already in the array');
    } catch (error) {
      if (!(error instanceof UnsupportedSchemaError)) throw error;
      failure ??= error;
    }
  }
  throw failure ?? new UnsupportedSchemaError(['type'], site.path, 'no type it allows could be generated');
}

function typeOrder(generation: Generation, schema: SchemaObject, site: Site): string[] {
  const declared = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : undefined;
  if (declared === undefined) {
    const hinted: string[] = [];
    if (OBJECT_KEYWORDS.some((keyword) => hasOwn(schema, keyword))) hinted.push('object');
    if (ARRAY_KEYWORDS.some((keyword) => hasOwn(schema, keyword))) hinted.push('array');
    if (STRING_KEYWORDS.some((keyword) => hasOwn(schema, keyword)) || STRING_FORMATS.has(String(schema.format))) hinted.push('string');
    if (NUMBER_KEYWORDS.some((keyword) => hasOwn(schema, keyword)) || NUMBER_FORMATS.has(String(schema.format))) hinted.push('number');
    return unique([...hinted, ...FALLBACK_TYPES]);
  }
  const others = declared.filter((type) => type !== 'null');
  const nullable = declared.includes('null') ? ['null'] : [];
  if (site.depth < generation.options.maxDepth) return [...others, ...nullable];
  return [...nullable, ...others.filter((type) => SCALAR_TYPES.includes(type)), ...others.filter((type) => !SCALAR_TYPES.includes(type))];
}

function candidates(generation: Generation, type: string, schema: SchemaObject, site: Site): Iterable<unknown> {
  switch (type) {
    case 'null':
      return [null];
    case 'boolean': {
      const first = generation.random.next() < 0.5;
      return [first, !first];
    }
    case 'integer':
      return numberCandidates(generation, schema, site, true);
    case 'number':
      return numberCandidates(generation, schema, site, false);
    case 'string':
      return stringCandidates(generation, schema, site);
    case 'array':
      return once(() => generateArray(generation, schema, site));
    case 'object':
      return once(() => generateObject(generation, schema, site));
    default:
      throw new UnsupportedSchemaError(['type'], site.path, `"${type}" is not a JSON Schema type`);
  }
}

function invalidValue(site: Site, errors: ErrorObject[], value: unknown): UnsupportedSchemaError {
  const keywords = unique(errors.map((error) => error.keyword));
  const details = errors
    .slice(0, 3)
    .map(
      (error) =>
        `${error.instancePath === '' ? 'the value' : accessPath(error.instancePath.split('/').slice(1).map(unescapePointerSegment))} ${error.message ?? 'is invalid'}`,
    );
  return new UnsupportedSchemaError(keywords, site.path, `the value it made, ${preview(value)}, is not valid: ${details.join('; ')}`);
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function* once<T>(make: () => T): Generator<T> {
  yield make();
}
