import { createValidator, type ErrorObject, type Validator } from './ajv.js';
import { patternExample } from './pattern-example.js';
import { seededRandom, type Random } from './seeded-random.js';
import { fitsNumberFormat, NUMBER_FORMATS, STRING_FORMATS } from './string-formats.js';
import { UnsupportedSchemaError } from './unsupported-schema-error.js';

/** A JSON Schema: an object of keywords, `true` (anything is valid) or `false` (nothing is). */
export type JsonSchema = boolean | { [keyword: string]: unknown };

type SchemaObject = { [keyword: string]: unknown };

/**
 * How {@link generateValue} varies and bounds what it makes. The bounds are soft: a schema that
 * requires more (a `minItems` above `maxItems`, a required property past `maxDepth`) still gets a
 * valid value.
 */
export interface GenerateOptions {
  /**
   * Picks among the valid values: the same schema and seed always give the same value, and other
   * seeds generally give other values. An integer, taken modulo 2^32.
   * @default 0
   */
  seed?: number;
  /**
   * How deep optional content may nest. The top-level value is at depth 0, its properties and
   * items at 1, and so on. A value at this depth or deeper gets only what its schema requires:
   * required properties, `minItems` items, `null` when its type allows it, and an anyOf/oneOf
   * branch without `$ref` when there is one. This is what ends recursive schemas.
   * @default 8
   */
  maxDepth?: number;
  /** The most items an array gets, unless its schema's `minItems` or `prefixItems` needs more. @default 3 */
  maxItems?: number;
  /**
   * The longest free-form string, unless the schema's `minLength` needs more. Strings made for a
   * `format` (a date-time, a uuid) or demanded by a `pattern` may be longer; a schema's own
   * `maxLength` always holds.
   * @default 16
   */
  maxLength?: number;
  /**
   * Use a schema's own `examples[0]`, else its `default`, when that value is valid against it:
   * the author's example is the most plausible value there is. Turn off to explore values.
   * @default true
   */
  useExamples?: boolean;
}

/** {@link GenerateOptions} with every default filled in and checked. */
interface ResolvedGenerateOptions {
  seed: number;
  maxDepth: number;
  maxItems: number;
  maxLength: number;
  useExamples: boolean;
}

/**
 * A JSON value valid against `schema`, made deterministically from `options.seed`.
 *
 * Values are readable rather than random-looking: strings come from the property name
 * (`city` → `"city-42"`), formats give real examples (`2024-05-17T14:30:00Z`, documentation IP
 * ranges, `example.com`), numbers stay in a small plausible range inside the bounds, and a
 * schema's own valid `examples[0]` or `default` is used as is.
 *
 * - Every required property is present; optional ones are present while the depth is below
 *   `maxDepth`. Arrays get 1 to `maxItems` items (within minItems/maxItems); tuples get their
 *   `prefixItems`.
 * - In `type` lists and `anyOf`/`oneOf`, the first choice that gives a valid value wins, with
 *   `null` last (first at `maxDepth`, to end recursion). A oneOf value matches exactly one branch.
 * - `pattern` text is written from the regex (classes, groups, alternation, quantifiers); a
 *   pattern using lookaround, backreferences or `\p{…}` is met only when one of the readable
 *   candidates happens to match it.
 * - What cannot be honoured is refused only when nothing avoids it: an optional property that
 *   cannot be made is left out, an anyOf branch skipped, an array past minItems cut short.
 *
 * Every value is validated with ajv (JSON Schema 2020-12, formats checked) before it is
 * returned; a value that would not pass is never returned — it throws instead. Draft-07 schemas
 * as the Vercel AI SDK sends them are read too: `definitions`, tuple `items` arrays with
 * `additionalItems`, and `$schema` (ignored).
 *
 * @throws {UnsupportedSchemaError} naming the keywords and the schema path it cannot honour.
 * @example generateValue({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }) // { city: 'city-42' }
 */
export function generateValue(schema: JsonSchema, options: GenerateOptions = {}): unknown {
  const resolved = resolveGenerateOptions(options);
  // Generation is deterministic, and compiling with ajv costs about a millisecond: the same
  // schema and options (a fake answering the same tool every turn) reuse the value made before.
  const memoKey = JSON.stringify([schema, resolved]);
  const remembered = generated.get(memoKey);
  if (remembered !== undefined) return structuredClone(remembered.value);
  const validator = generationValidator();
  try {
    const prepared = prepareSchema(schema, validator);
    const value = new ValueGenerator(prepared, resolved, validator).generateRoot();
    if (generated.size >= GENERATED_LIMIT) generated.clear();
    generated.set(memoKey, { value: structuredClone(value) });
    return value;
  } finally {
    // The validator is shared between calls; keep only its meta-schemas, formats and keywords.
    validator.removeSchema();
  }
}

const GENERATED_LIMIT = 200;
const generated = new Map<string, { value: unknown }>();

/** Fills in the defaults of {@link GenerateOptions}; throws a RangeError naming a bad value. */
function resolveGenerateOptions(options: GenerateOptions): ResolvedGenerateOptions {
  const count = (name: keyof GenerateOptions, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`Invalid generateValue option ${name} ${value}: expected a non-negative integer`);
    return value;
  };
  const seed = options.seed ?? 0;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`Invalid generateValue option seed ${seed}: expected an integer`);
  return {
    seed,
    maxDepth: count('maxDepth', options.maxDepth, 8),
    maxItems: count('maxItems', options.maxItems, 3),
    maxLength: count('maxLength', options.maxLength, 16),
    useExamples: options.useExamples ?? true,
  };
}

// ---------------------------------------------------------------------------------------------
// Keywords

/** Keywords that describe, contain definitions, or are harmless flags: nothing to generate. */
const ANNOTATIONS = new Set([
  '$schema', '$id', '$comment', '$anchor', '$dynamicAnchor', '$vocabulary', '$defs', 'definitions',
  'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly',
  'contentEncoding', 'contentMediaType', 'contentSchema',
  // OpenAI's structured-output flag, sometimes left inside the parameters schema.
  'strict',
]);

const HONOURED = new Set([
  'type', 'enum', 'const', '$ref', 'allOf', 'anyOf', 'oneOf',
  'properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames',
  'minProperties', 'maxProperties', 'dependentRequired',
  'items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems',
  'minLength', 'maxLength', 'pattern', 'format',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
]);

/** JSON Schema keywords ajv knows but the generator cannot honour; refused when generation reaches them. */
const REFUSED = new Set([
  'not', 'if', 'then', 'else', 'dependentSchemas', 'dependencies', 'contains', 'minContains', 'maxContains',
  'unevaluatedProperties', 'unevaluatedItems', '$dynamicRef',
]);

const SUBSCHEMA = new Set(['additionalProperties', 'propertyNames', 'items', 'contains', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema']);
const SUBSCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const OBJECT_KEYWORDS = ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', 'dependentRequired'];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems'];
const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const SCALAR_TYPES = ['boolean', 'integer', 'number', 'string'];
const FALLBACK_TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'object', 'array'];

/** References are rewritten against this id, so any piece of the schema can be compiled alone. */
const ROOT_ID = 'https://modeltape.invalid/generate-value/schema.json';
/** How many candidates of one type are checked before giving up on it. */
const CANDIDATE_LIMIT = 24;
/** The most anyOf/oneOf combinations an allOf may multiply into. */
const COMBINATION_LIMIT = 64;

// ---------------------------------------------------------------------------------------------
// The validator

let sharedValidator: Validator | undefined;

function generationValidator(): Validator {
  if (sharedValidator) return sharedValidator;
  const validator = createValidator();
  // Valid JSON Schema that strict mode still refuses: a named property a patternProperties
  // pattern also matches. Set before anything is compiled; ajv reads its options at compile time.
  validator.opts.allowMatchingProperties = true;
  for (const [name, format] of STRING_FORMATS) validator.addFormat(name, { type: 'string', validate: format.isValid });
  for (const [name, format] of NUMBER_FORMATS) validator.addFormat(name, { type: 'number', validate: (value: number) => fitsNumberFormat(format, value) });
  validator.addKeyword('strict');
  sharedValidator = validator;
  return validator;
}

// ---------------------------------------------------------------------------------------------
// Preparing the schema: a copy ajv 2020 can compile piece by piece

/**
 * A copy of `schema` with `$schema` dropped, draft-07 tuples rewritten as `prefixItems`, and
 * every `$ref` made absolute. Refuses unknown keywords, unknown formats, remote references and
 * schemas ajv finds invalid, before any value is made.
 */
function prepareSchema(schema: JsonSchema, validator: Validator): JsonSchema {
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
      else if (SUBSCHEMA_LISTS.has(keyword) && Array.isArray(value)) entries.push([keyword, value.map((item, index) => walk(item, `${path}.${keyword}[${index}]`, false))]);
      else if ((SUBSCHEMA_MAPS.has(keyword) || keyword === 'dependencies') && isSchemaObject(value)) {
        if (keyword === 'patternProperties') for (const pattern of Object.keys(value)) checkRegex(pattern, keyword, path);
        // `dependencies` mixes property lists and schemas; only the schemas are walked.
        entries.push([keyword, Object.fromEntries(Object.entries(value).map(([key, item]) => [key, Array.isArray(item) ? item : walk(item, `${path}.${keyword}${accessor(key)}`, false)]))]);
      } else if (HONOURED.has(keyword) || REFUSED.has(keyword) || ANNOTATIONS.has(keyword)) {
        if (keyword === 'format' && typeof value === 'string') checkFormat(value, node, path, validator);
        if (keyword === 'pattern' && typeof value === 'string') checkRegex(value, 'pattern', path);
        entries.push([keyword, value]);
      } else unknown.push(keyword);
    }
    if (unknown.length > 0) {
      const they = unknown.length === 1 ? `"${unknown[0]}" is not a JSON Schema keyword` : `${unknown.map((keyword) => `"${keyword}"`).join(', ')} are not JSON Schema keywords`;
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
    throw new UnsupportedSchemaError(keyword === undefined ? [] : [keyword], accessPath(segments), `the schema is invalid: ${keyword ?? 'it'} ${error?.message ?? 'does not follow JSON Schema 2020-12'}`);
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
        throw new UnsupportedSchemaError(['$ref'], path, `the reference to ${targetPath || 'the root'} leads back to a schema the same value is already inside, so checking a value never ends`);
      }
      search(target, targetPath, active);
    }
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(node[keyword])) (node[keyword] as unknown[]).forEach((child, index) => search(child, `${path}.${keyword}[${index}]`, active));
    for (const keyword of ['not', 'if', 'then', 'else']) if (hasOwn(node, keyword)) search(node[keyword], `${path}.${keyword}`, active);
    if (isSchemaObject(node.dependentSchemas)) for (const [key, child] of Object.entries(node.dependentSchemas)) search(child, `${path}.dependentSchemas${accessor(key)}`, active);
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

/** The absolute form of a local `$ref`, pointing into the prepared copy. */
function rewriteReference(root: JsonSchema, reference: unknown, path: string): string {
  const { translated } = followReference(root, reference, path);
  return `${ROOT_ID}#${translated.map((segment) => `/${escapePointerSegment(segment)}`).join('')}`;
}

/** What a local `$ref` points at in the original schema, and its pointer in the prepared copy. */
function followReference(root: JsonSchema, reference: unknown, path: string): { target: unknown; translated: string[] } {
  if (typeof reference !== 'string' || !(reference === '#' || reference.startsWith('#/'))) {
    throw new UnsupportedSchemaError(['$ref'], path, `only references inside the same schema ("#", "#/$defs/Name") are followed, not ${JSON.stringify(reference)}`);
  }
  const segments = reference === '#' ? [] : reference.slice(2).split('/').map(unescapePointerSegment);
  const translated: string[] = [];
  let node: unknown = root;
  for (const [index, segment] of segments.entries()) {
    let step = segment;
    // Follow the draft-07 tuple rewrite done by prepareSchema.
    if (isSchemaObject(node) && Array.isArray(node.items)) {
      if (segment === 'items' && /^\d+$/.test(segments[index + 1] ?? '')) step = 'prefixItems';
      else if (segment === 'additionalItems') step = 'items';
    }
    node = Array.isArray(node) ? node[Number(segment)] : isSchemaObject(node) && hasOwn(node, segment) ? node[segment] : undefined;
    if (node === undefined) throw new UnsupportedSchemaError(['$ref'], path, `${JSON.stringify(reference)} points at nothing in the schema`);
    translated.push(step);
  }
  return { target: node, translated };
}

/** The schema an absolute `$ref` of the prepared copy points at, and where, in access syntax. */
function resolvePrepared(root: JsonSchema, reference: string): { target: JsonSchema; path: string } {
  const fragment = reference.slice(ROOT_ID.length + 1);
  const segments = fragment === '' ? [] : fragment.slice(1).split('/').map(unescapePointerSegment);
  let node: unknown = root;
  let path = '';
  for (const segment of segments) {
    path += Array.isArray(node) ? accessor(Number(segment)) : accessor(segment);
    node = Array.isArray(node) ? node[Number(segment)] : (node as SchemaObject)[segment];
  }
  return { target: node as JsonSchema, path };
}

// ---------------------------------------------------------------------------------------------
// Generating

interface ReferenceEntry {
  target: JsonSchema;
  depth: number;
}

/** One value being generated. */
interface Site {
  /** What to generate from: part of the prepared schema, or a merge of several parts. */
  schema: JsonSchema;
  /** What the value must be valid against, exactly; merges only guide, this decides. */
  check: JsonSchema;
  /** Where in the schema, in JSON access syntax. */
  path: string;
  /** Nesting depth of the value: 0 for the top-level value. */
  depth: number;
  /** The property the value is for, to make readable strings. */
  name: string | undefined;
  /** Values (as stable keys) to avoid: the earlier items of a uniqueItems array. */
  avoid: ReadonlySet<string> | undefined;
  /** `$ref` targets entered on the way here, to end recursion. */
  references: readonly ReferenceEntry[];
}

class ValueGenerator {
  private readonly random: Random;
  private readonly references = new Map<string, { target: JsonSchema; path: string }>();
  // Merged schemas are cached so each is compiled by ajv once per call.
  private readonly merges = new Map<string, JsonSchema>();
  private readonly identities = new Map<object, number>();
  private readonly rests = new Map<string, SchemaObject>();
  private readonly referencing = new WeakMap<object, boolean>();

  constructor(
    private readonly root: JsonSchema,
    private readonly options: ResolvedGenerateOptions,
    private readonly validator: Validator,
  ) {
    this.random = seededRandom(options.seed);
  }

  generateRoot(): unknown {
    const root = this.root;
    return this.generate({ schema: root, check: root, path: '', depth: 0, name: undefined, avoid: undefined, references: [{ target: root, depth: 0 }] });
  }

  private generate(site: Site): unknown {
    if (site.schema === false) throw new UnsupportedSchemaError([], site.path, 'the schema is `false`, which no value satisfies');
    const schema: SchemaObject = site.schema === true ? {} : site.schema;
    const refused = Object.keys(schema).filter((keyword) => REFUSED.has(keyword));
    if (refused.length > 0) throw new UnsupportedSchemaError(refused, site.path, `the generator does not make values for ${refused.map((keyword) => `"${keyword}"`).join(', ')}`);
    if (this.options.useExamples) {
      const example = this.authorExample(schema, site);
      if (example.found) return example.value;
    }
    if (typeof schema.$ref === 'string') return this.generateReference(schema, site);
    if (Array.isArray(schema.allOf)) return this.generateMerged([schema], site);
    if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) return this.generateAlternative(schema, site);
    if (hasOwn(schema, 'const') || Array.isArray(schema.enum)) return this.pickListed(schema, site);
    return this.generateTyped(schema, site);
  }

  private authorExample(schema: SchemaObject, site: Site): { found: true; value: unknown } | { found: false } {
    const candidates: unknown[] = [];
    if (Array.isArray(schema.examples) && schema.examples.length > 0) candidates.push(schema.examples[0]);
    if (hasOwn(schema, 'default')) candidates.push(schema.default);
    for (const candidate of candidates) {
      if (site.avoid?.has(stableKey(candidate))) continue;
      if (this.errors(site.check, candidate) === undefined) return { found: true, value: structuredClone(candidate) };
    }
    return { found: false };
  }

  private generateReference(schema: SchemaObject, site: Site): unknown {
    if (hasConstraints(schema, ['$ref'])) return this.generateMerged([schema], site);
    const reference = schema.$ref as string;
    const { target, path } = this.resolve(reference);
    if (this.alreadyEntered(site, site.references, target, path)) {
      throw new UnsupportedSchemaError(['$ref'], site.path, `the reference to ${path || 'the root'} leads back to itself without nesting a value, so it never resolves`);
    }
    return this.generate({ ...site, schema: target, path, references: [...site.references, { target, depth: site.depth }] });
  }

  /**
   * Whether `target` was already entered for this very value (same depth, nothing nested since).
   * Throws when recursion has gone past maxDepth and comes round again: past maxDepth every choice
   * is the minimal one, so coming back means it would repeat forever.
   */
  private alreadyEntered(site: Site, entered: readonly ReferenceEntry[], target: JsonSchema, path: string): boolean {
    if (entered.some((entry) => entry.target === target && entry.depth === site.depth)) return true;
    const limit = this.options.maxDepth;
    if (site.depth >= limit && entered.some((entry) => entry.target === target && entry.depth >= limit)) {
      throw new UnsupportedSchemaError(['$ref'], site.path, `the schema at ${path || 'the root'} requires itself again at every level past maxDepth (${limit}), so a value would never end`);
    }
    return false;
  }

  private resolve(reference: string): { target: JsonSchema; path: string } {
    let resolved = this.references.get(reference);
    if (!resolved) {
      resolved = resolvePrepared(this.root, reference);
      this.references.set(reference, resolved);
    }
    return resolved;
  }

  private generateMerged(parts: readonly JsonSchema[], site: Site): unknown {
    const { schema, references } = this.merge(parts, site);
    return this.generate({ ...site, schema, references });
  }

  private generateAlternative(schema: SchemaObject, site: Site): unknown {
    const keyword = Array.isArray(schema.anyOf) ? 'anyOf' : 'oneOf';
    const branches = schema[keyword] as JsonSchema[];
    const restKey = `${keyword}:${this.identity(schema)}`;
    const rest = this.rests.get(restKey) ?? without(schema, [keyword]);
    this.rests.set(restKey, rest);
    const plain = !hasConstraints(rest, []);
    const failures: Array<{ index: number; error: UnsupportedSchemaError }> = [];
    for (const index of this.branchOrder(branches, site)) {
      const branch = branches[index]!;
      try {
        // The branch is checked against site.check, the whole schema, so oneOf still means exactly one.
        if (plain) return this.generate({ ...site, schema: branch, path: `${site.path}.${keyword}[${index}]` });
        return this.generateMerged([rest, branch], site);
      } catch (error) {
        if (!(error instanceof UnsupportedSchemaError)) throw error;
        failures.push({ index, error });
      }
    }
    const keywords = unique([keyword, ...failures.flatMap((failure) => failure.error.keywords)]);
    const shown = failures.slice(0, 3).map((failure) => `branch ${failure.index}: at ${failure.error.path || 'the root'}, ${failure.error.reason}`);
    throw new UnsupportedSchemaError(keywords, site.path, `no branch of ${keyword} gives a valid value (${shown.join('; ')})`, { cause: failures[0]?.error });
  }

  private branchOrder(branches: readonly JsonSchema[], site: Site): number[] {
    const order = branches.map((_, index) => index);
    if (site.depth < this.options.maxDepth) return order;
    // At the depth limit, a branch that cannot recurse ends the value soonest.
    return order.sort((a, b) => Number(this.containsReference(branches[a]!)) - Number(this.containsReference(branches[b]!)));
  }

  private containsReference(schema: JsonSchema): boolean {
    if (!isSchemaObject(schema)) return false;
    const known = this.referencing.get(schema);
    if (known !== undefined) return known;
    const found = typeof schema.$ref === 'string' || childSchemasWithPaths(schema, '').some(([child]) => this.containsReference(child));
    this.referencing.set(schema, found);
    return found;
  }

  private pickListed(schema: SchemaObject, site: Site): unknown {
    const keyword = hasOwn(schema, 'const') ? 'const' : 'enum';
    const listed = keyword === 'const' ? [schema.const] : (schema.enum as unknown[]);
    const valid = listed.filter((value) => !site.avoid?.has(stableKey(value)) && this.errors(site.check, value) === undefined);
    if (valid.length === 0) {
      const used = listed.some((value) => site.avoid?.has(stableKey(value)));
      throw new UnsupportedSchemaError(used ? [keyword, 'uniqueItems'] : [keyword], site.path, used ? `every ${keyword} value that is valid is already in the array` : `no ${keyword} value is valid against the rest of the schema`);
    }
    return structuredClone(this.random.pick(valid));
  }

  private generateTyped(schema: SchemaObject, site: Site): unknown {
    let failure: UnsupportedSchemaError | undefined;
    for (const type of this.typeOrder(schema, site)) {
      let tried = 0;
      let avoided = 0;
      try {
        for (const candidate of this.candidates(type, schema, site)) {
          if (++tried > CANDIDATE_LIMIT) break;
          if (site.avoid?.has(stableKey(candidate))) {
            avoided++;
            continue;
          }
          const errors = this.errors(site.check, candidate);
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

  private typeOrder(schema: SchemaObject, site: Site): string[] {
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
    if (site.depth < this.options.maxDepth) return [...others, ...nullable];
    return [...nullable, ...others.filter((type) => SCALAR_TYPES.includes(type)), ...others.filter((type) => !SCALAR_TYPES.includes(type))];
  }

  private candidates(type: string, schema: SchemaObject, site: Site): Iterable<unknown> {
    switch (type) {
      case 'null':
        return [null];
      case 'boolean': {
        const first = this.random.next() < 0.5;
        return [first, !first];
      }
      case 'integer':
        return this.numberCandidates(schema, site, true);
      case 'number':
        return this.numberCandidates(schema, site, false);
      case 'string':
        return this.stringCandidates(schema, site);
      case 'array':
        return once(() => this.generateArray(schema, site));
      case 'object':
        return once(() => this.generateObject(schema, site));
      default:
        throw new UnsupportedSchemaError(['type'], site.path, `"${type}" is not a JSON Schema type`);
    }
  }

  // --- numbers ---------------------------------------------------------------------------------

  private *numberCandidates(schema: SchemaObject, site: Site, wantInteger: boolean): Generator<number> {
    const format = typeof schema.format === 'string' ? NUMBER_FORMATS.get(schema.format) : undefined;
    const integer = wantInteger || format?.integer === true;
    const bounds = numericBounds(schema);
    const multipleOf = typeof schema.multipleOf === 'number' ? schema.multipleOf : undefined;
    const fits = (value: number): boolean =>
      Number.isFinite(value) &&
      (bounds.lowExclusive ? value > bounds.low : value >= bounds.low) &&
      (bounds.highExclusive ? value < bounds.high : value <= bounds.high) &&
      (!integer || Number.isInteger(value)) &&
      (multipleOf === undefined || Number.isInteger(value / multipleOf)) &&
      (format === undefined || fitsNumberFormat(format, value));
    const seen = new Set<number>();
    const fresh = (value: number): boolean => {
      // -0 and 0 are the same JSON number.
      const normal = value === 0 ? 0 : value;
      if (seen.has(normal) || !fits(normal)) return false;
      seen.add(normal);
      return true;
    };
    const step = integer ? integerStep(multipleOf) : multipleOf;
    if (step === undefined && integer) {
      throw new UnsupportedSchemaError(['multipleOf'], site.path, `it cannot find whole multiples of ${multipleOf}`);
    }
    if (step !== undefined) {
      const decimals = decimalPlaces(step);
      const valueOf = (multiple: number): number => (decimals > 0 && decimals <= 20 ? Number((multiple * step).toFixed(decimals)) : multiple * step);
      let lowest = Math.ceil(bounds.low / step);
      if (bounds.lowExclusive && lowest * step <= bounds.low) lowest++;
      let highest = Math.floor(bounds.high / step);
      if (bounds.highExclusive && highest * step >= bounds.high) highest--;
      const span = Math.max(1, Math.floor(100 / step));
      const [first, last] = plausibleWindow(lowest, highest, span, 1);
      for (let attempt = 0; attempt < 8; attempt++) {
        const value = valueOf(this.random.integer(first, last));
        if (fresh(value)) yield value;
      }
      // ajv checks multipleOf by exact float division, so some multiples fail; scan for others.
      for (let multiple = first; multiple <= Math.min(last, first + 64); multiple++) {
        const value = valueOf(multiple);
        if (fresh(value)) yield value;
      }
    } else {
      const [first, last] = plausibleWindow(bounds.low, bounds.high, 100, 0);
      for (let attempt = 0; attempt < 6; attempt++) {
        const raw = first + this.random.next() * (last - first);
        for (const places of [2, 4, 8]) {
          const rounded = Math.round(raw * 10 ** places) / 10 ** places;
          if (fresh(rounded)) {
            yield rounded;
            break;
          }
        }
      }
      for (const value of [first / 2 + last / 2, bounds.low, bounds.high, first, last]) if (fresh(value)) yield value;
    }
    if (seen.size === 0) {
      const keywords = [...NUMBER_KEYWORDS, 'format'].filter((keyword) => hasOwn(schema, keyword));
      throw new UnsupportedSchemaError(keywords, site.path, `no ${integer ? 'integer' : 'number'} satisfies ${keywords.map((keyword) => `${keyword} ${JSON.stringify(schema[keyword])}`).join(', ')}`);
    }
  }

  // --- strings ---------------------------------------------------------------------------------

  private *stringCandidates(schema: SchemaObject, site: Site): Generator<string> {
    const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
    const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
    if (minLength > maxLength) throw new UnsupportedSchemaError(['minLength', 'maxLength'], site.path, `minLength ${minLength} is more than maxLength ${maxLength}`);
    const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
    const regex = pattern === undefined ? undefined : new RegExp(pattern, 'u');
    const format = typeof schema.format === 'string' ? STRING_FORMATS.get(schema.format) : undefined;
    const freeLimit = Math.min(maxLength, Math.max(minLength, this.options.maxLength));
    let closest: { text: string; misses: number; keywords: string[] } | undefined;
    let patternTrouble: string | undefined;
    const seen = new Set<string>();
    // Whether `text` meets the string keywords locally; remembers the nearest miss for the error.
    const fits = (text: string, source: string[]): boolean => {
      if (seen.has(text)) return false;
      const length = [...text].length;
      const misses = [
        ...(length < minLength ? ['minLength'] : []),
        ...(length > maxLength ? ['maxLength'] : []),
        ...(regex && !regex.test(text) ? ['pattern'] : []),
        ...(format && !format.isValid(text) ? ['format'] : []),
      ];
      if (misses.length === 0) {
        seen.add(text);
        return true;
      }
      if (!closest || misses.length < closest.misses) closest = { text, misses: misses.length, keywords: unique([...source, ...misses]) };
      return false;
    };
    if (format) {
      for (let attempt = 0; attempt < 8; attempt++) {
        const text = format.example(this.random, site.name);
        if (fits(text, ['format'])) yield text;
      }
    } else {
      for (let attempt = 0; attempt < 3; attempt++) for (const text of this.readableTexts(site.name, minLength, freeLimit)) if (fits(text, [])) yield text;
    }
    if (pattern !== undefined) {
      for (let attempt = 0; attempt < 6; attempt++) {
        const example = patternExample(pattern, { random: this.random, minLength, maxLength });
        if (!example.ok) {
          patternTrouble = example.reason;
          break;
        }
        if (fits(example.text, ['pattern'])) yield example.text;
      }
    }
    if (!format) {
      for (let attempt = 0; attempt < 8; attempt++) {
        const text = randomWord(this.random, minLength, freeLimit);
        if (fits(text, [])) yield text;
      }
    }
    if (seen.size === 0) {
      if (patternTrouble !== undefined) throw new UnsupportedSchemaError(['pattern'], site.path, `for the pattern ${JSON.stringify(pattern)}, ${patternTrouble}`);
      const keywords = closest?.keywords ?? ['type'];
      throw new UnsupportedSchemaError(keywords, site.path, `no string it made satisfies ${keywords.join(' and ')}${closest ? ` (nearest: ${JSON.stringify(closest.text)})` : ''}`);
    }
  }

  /** `city` → `city-42`, then plainer forms a pattern may accept: `city`, `city42`. */
  private readableTexts(name: string | undefined, minimum: number, maximum: number): string[] {
    const base = name === undefined || name === '' ? 'example' : name;
    const number = this.random.integer(1, 99);
    return unique([`${base}-${number}`, base, `${base}${number}`].map((text) => fitLength(text, minimum, maximum)));
  }

  // --- arrays ----------------------------------------------------------------------------------

  private generateArray(schema: SchemaObject, site: Site): unknown[] {
    const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as JsonSchema[]) : [];
    const items = hasOwn(schema, 'items') ? (schema.items as JsonSchema) : true;
    const lower = typeof schema.minItems === 'number' ? schema.minItems : 0;
    let upper = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
    if (items === false) upper = Math.min(upper, prefix.length);
    if (lower > upper) {
      const keywords = ['minItems', 'maxItems', 'items', 'prefixItems'].filter((keyword) => hasOwn(schema, keyword));
      throw new UnsupportedSchemaError(keywords, site.path, `it needs at least ${lower} items but allows at most ${upper}`);
    }
    let length = lower;
    if (site.depth < this.options.maxDepth && prefix.length > 0) {
      // A tuple gets exactly its prefix, not extra free items.
      length = Math.min(upper, Math.max(lower, prefix.length));
    } else if (site.depth < this.options.maxDepth) {
      const most = Math.min(upper, Math.max(lower, this.options.maxItems));
      length = this.random.integer(Math.min(most, Math.max(lower, Math.min(upper, 1))), most);
    }
    const distinct = schema.uniqueItems === true;
    const values: unknown[] = [];
    const seen = new Set<string>();
    for (let index = 0; index < length; index++) {
      const inPrefix = index < prefix.length;
      const itemSchema = inPrefix ? prefix[index]! : items;
      const item: Site = {
        schema: itemSchema,
        check: itemSchema,
        path: inPrefix ? `${site.path}.prefixItems[${index}]` : `${site.path}.items`,
        depth: site.depth + 1,
        name: site.name,
        avoid: distinct ? seen : undefined,
        references: site.references,
      };
      let produced: { value: unknown } | undefined;
      let failure: unknown;
      for (let attempt = 0; attempt < (distinct ? 8 : 1) && !produced; attempt++) {
        try {
          const value = this.generate(item);
          if (!distinct || !seen.has(stableKey(value))) produced = { value };
        } catch (error) {
          if (!(error instanceof UnsupportedSchemaError)) throw error;
          failure = error;
          break;
        }
      }
      if (!produced) {
        // Items past minItems are optional: a shorter array is still valid.
        if (index >= lower) break;
        throw failure ?? new UnsupportedSchemaError(['uniqueItems'], site.path, `it could not make ${lower} different items`);
      }
      values.push(produced.value);
      seen.add(stableKey(produced.value));
    }
    return values;
  }

  // --- objects ---------------------------------------------------------------------------------

  private generateObject(schema: SchemaObject, site: Site): Record<string, unknown> {
    const properties = isSchemaObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    const atLimit = site.depth >= this.options.maxDepth;
    const result: Record<string, unknown> = {};
    let count = 0;
    const add = (key: string): boolean => {
      if (hasOwn(result, key)) return true;
      try {
        setProperty(result, key, this.generateProperty(schema, site, key));
        count++;
        return true;
      } catch (error) {
        // An optional property that cannot be made is simply left out.
        if (error instanceof UnsupportedSchemaError && !required.includes(key)) return false;
        throw error;
      }
    };
    for (const key of unique([...Object.keys(properties).filter((key) => !atLimit || required.includes(key)), ...required])) add(key);

    const dependents = isSchemaObject(schema.dependentRequired) ? schema.dependentRequired : {};
    for (const [key, needs] of Object.entries(dependents)) {
      if (!hasOwn(result, key) || !Array.isArray(needs)) continue;
      if (!needs.every((need: string) => add(need))) {
        if (required.includes(key)) throw new UnsupportedSchemaError(['dependentRequired'], site.path, `the required property ${JSON.stringify(key)} needs ${needs.join(', ')}, which could not all be made`);
        delete result[key];
        count--;
      }
    }

    const maxProperties = typeof schema.maxProperties === 'number' ? schema.maxProperties : Number.POSITIVE_INFINITY;
    for (const key of Object.keys(result).reverse()) {
      if (count <= maxProperties) break;
      if (required.includes(key)) continue;
      delete result[key];
      count--;
    }
    if (count > maxProperties) throw new UnsupportedSchemaError(['maxProperties', 'required'], site.path, `it requires ${count} properties but allows at most ${maxProperties}`);

    // A map-shaped object (no named properties, a schema for the rest) gets one entry while depth allows.
    const mapShaped = Object.keys(properties).length === 0 && (isSchemaObject(schema.additionalProperties) || isSchemaObject(schema.patternProperties));
    const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
    const wanted = Math.min(maxProperties, Math.max(minProperties, mapShaped && !atLimit ? 1 : 0));
    for (const key of Object.keys(properties)) if (count < wanted) add(key);
    for (let attempt = 1; count < wanted && attempt <= wanted + 8; attempt++) {
      const key = this.inventKey(schema, site, attempt, Object.keys(result));
      if (key !== undefined && !hasOwn(result, key) && !required.includes(key)) add(key);
    }
    if (count < minProperties) throw new UnsupportedSchemaError(['minProperties'], site.path, `it could make only ${count} of the ${minProperties} properties needed`);
    return result;
  }

  /** The value of property `key`: every schema that applies to it (properties, patternProperties, else additionalProperties), together. */
  private generateProperty(schema: SchemaObject, site: Site, key: string): unknown {
    const properties = isSchemaObject(schema.properties) ? schema.properties : {};
    const patterns = isSchemaObject(schema.patternProperties) ? schema.patternProperties : {};
    const parts: Array<{ schema: JsonSchema; keyword: string; path: string }> = [];
    if (hasOwn(properties, key)) parts.push({ schema: properties[key] as JsonSchema, keyword: 'properties', path: `${site.path}.properties${accessor(key)}` });
    for (const [pattern, patternSchema] of Object.entries(patterns)) {
      if (new RegExp(pattern, 'u').test(key)) parts.push({ schema: patternSchema as JsonSchema, keyword: 'patternProperties', path: `${site.path}.patternProperties${accessor(pattern)}` });
    }
    if (parts.length === 0) {
      const rest = hasOwn(schema, 'additionalProperties') ? (schema.additionalProperties as JsonSchema) : true;
      parts.push({ schema: rest, keyword: 'additionalProperties', path: `${site.path}.additionalProperties` });
    }
    const forbidding = parts.find((part) => part.schema === false);
    if (forbidding) throw new UnsupportedSchemaError(['required', forbidding.keyword], site.path, `the property ${JSON.stringify(key)} is required but ${forbidding.keyword} does not allow it`);
    if (hasOwn(schema, 'propertyNames') && this.errors(schema.propertyNames as JsonSchema, key) !== undefined) {
      throw new UnsupportedSchemaError(['required', 'propertyNames'], site.path, `the property ${JSON.stringify(key)} is required but its name is not allowed by propertyNames`);
    }
    const child = this.conjunction(parts.map((part) => part.schema));
    return this.generate({ schema: child, check: child, path: parts[0]!.path, depth: site.depth + 1, name: key, avoid: undefined, references: site.references });
  }

  /** A new property name for minProperties or a map-shaped object, or undefined if none fits. */
  private inventKey(schema: SchemaObject, site: Site, attempt: number, taken: readonly string[]): string | undefined {
    if (hasOwn(schema, 'propertyNames') && schema.propertyNames !== true) {
      const names = schema.propertyNames as JsonSchema;
      const avoid = new Set(taken.map(stableKey));
      try {
        const key = this.generate({ schema: names, check: names, path: `${site.path}.propertyNames`, depth: site.depth + 1, name: 'key', avoid, references: site.references });
        return typeof key === 'string' ? key : undefined;
      } catch (error) {
        if (error instanceof UnsupportedSchemaError) return undefined;
        throw error;
      }
    }
    const patterns = isSchemaObject(schema.patternProperties) ? Object.keys(schema.patternProperties) : [];
    if (patterns.length > 0) {
      const pattern = patterns[(attempt - 1) % patterns.length]!;
      const example = patternExample(pattern, { random: this.random, minLength: 1, maxLength: 32 });
      if (example.ok) {
        // A pattern like "^x-" always gives the same text; an unanchored end can take a counter.
        const numbered = `${example.text}${attempt}`;
        if (!taken.includes(example.text)) return example.text;
        if (new RegExp(pattern, 'u').test(numbered)) return numbered;
      }
    }
    return schema.additionalProperties === false ? undefined : `key-${attempt}`;
  }

  // --- merging ---------------------------------------------------------------------------------

  /**
   * One schema to generate from for the conjunction of `parts`, with their `$ref`s and `allOf`s
   * inlined. It guides generation only — the site's check still holds every part — so where two
   * parts disagree in a way it cannot combine (two patterns), it keeps the first.
   */
  private merge(parts: readonly JsonSchema[], site: Site): { schema: JsonSchema; references: ReferenceEntry[] } {
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
        const { target, path } = this.resolve(part.$ref);
        // Entered already for this value: the conjunction with itself adds nothing.
        if (!this.alreadyEntered(site, references, target, path)) {
          references.push({ target, depth: site.depth });
          visit(target);
        }
      }
      if (Array.isArray(part.allOf)) for (const item of part.allOf as JsonSchema[]) visit(item);
      objects.push(part);
    };
    for (const part of parts) visit(part);
    if (impossible) return { schema: false, references };
    const key = objects.map((object) => this.identity(object)).join(',');
    let schema = this.merges.get(key);
    if (schema === undefined) {
      schema = this.combine(objects, site);
      this.merges.set(key, schema);
    }
    return { schema, references };
  }

  private combine(objects: readonly SchemaObject[], site: Site): JsonSchema {
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
            if (merged.length === 0) throw contradiction('type', `no type is allowed by all of ${JSON.stringify(objects.map((part) => part.type).filter(Boolean))}`);
            result.type = merged;
            break;
          }
          case 'enum': {
            const merged = result.enum === undefined ? (value as unknown[]) : (result.enum as unknown[]).filter((item) => (value as unknown[]).some((other) => stableKey(other) === stableKey(item)));
            if (merged.length === 0) throw contradiction('enum', 'no value is in every enum');
            result.enum = merged;
            break;
          }
          case 'const':
            if (hasOwn(result, 'const') && stableKey(result.const) !== stableKey(value)) throw contradiction('const', `${JSON.stringify(result.const)} is not ${JSON.stringify(value)}`);
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
            for (const [key, needs] of Object.entries(value as Record<string, string[]>)) for (const need of needs) (dependentRequired.get(key) ?? dependentRequired.set(key, new Set()).get(key)!).add(need);
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
    if (properties.size > 0) result.properties = Object.fromEntries([...properties].map(([key, list]) => [key, this.conjunction(list)]));
    if (patternProperties.size > 0) result.patternProperties = Object.fromEntries([...patternProperties].map(([key, list]) => [key, this.conjunction(list)]));
    for (const [keyword, list] of Object.entries(lists)) if (list.length > 0) result[keyword] = this.conjunction(list);
    if (prefixItems.length > 0) result.prefixItems = prefixItems.map((list) => this.conjunction(list));
    if (required.size > 0) result.required = [...required];
    if (dependentRequired.size > 0) result.dependentRequired = Object.fromEntries([...dependentRequired].map(([key, needs]) => [key, [...needs]]));
    if (alternatives.length === 1) result.anyOf = alternatives[0];
    else if (alternatives.length > 1) {
      const size = alternatives.reduce((total, list) => total * list.length, 1);
      if (size > COMBINATION_LIMIT) throw new UnsupportedSchemaError(['anyOf', 'oneOf'], site.path, `its alternatives combine into ${size} cases, more than the ${COMBINATION_LIMIT} it tries`);
      result.anyOf = alternatives.reduce<JsonSchema[][]>((combinations, list) => combinations.flatMap((combination) => list.map((branch) => [...combination, branch])), [[]]).map((combination) => this.conjunction(combination));
    }
    return result;
  }

  /** One schema for "all of these", keeping object identity stable so ajv compiles it once. */
  private conjunction(list: readonly JsonSchema[]): JsonSchema {
    if (list.includes(false)) return false;
    const meaningful = list.filter((schema) => schema !== true);
    if (meaningful.length === 0) return true;
    if (meaningful.length === 1) return meaningful[0]!;
    const key = `all:${meaningful.map((schema) => this.identity(schema as SchemaObject)).join(',')}`;
    let schema = this.merges.get(key);
    if (schema === undefined) {
      schema = { allOf: [...meaningful] };
      this.merges.set(key, schema);
    }
    return schema;
  }

  private identity(object: SchemaObject): number {
    let identity = this.identities.get(object);
    if (identity === undefined) {
      identity = this.identities.size;
      this.identities.set(object, identity);
    }
    return identity;
  }

  // --- checking --------------------------------------------------------------------------------

  /** ajv's errors for `value` against `schema`, or undefined when it is valid. */
  private errors(schema: JsonSchema, value: unknown): ErrorObject[] | undefined {
    const validate = this.validator.compile(schema);
    return validate(value) ? undefined : [...(validate.errors ?? [])];
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function invalidValue(site: Site, errors: ErrorObject[], value: unknown): UnsupportedSchemaError {
  const keywords = unique(errors.map((error) => error.keyword));
  const details = errors.slice(0, 3).map((error) => `${error.instancePath === '' ? 'the value' : accessPath(error.instancePath.split('/').slice(1).map(unescapePointerSegment))} ${error.message ?? 'is invalid'}`);
  return new UnsupportedSchemaError(keywords, site.path, `the value it made, ${preview(value)}, is not valid: ${details.join('; ')}`);
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function* once<T>(make: () => T): Generator<T> {
  yield make();
}

function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** Whether `schema` has any keyword besides annotations and `ignored`. */
function hasConstraints(schema: SchemaObject, ignored: readonly string[]): boolean {
  return Object.keys(schema).some((keyword) => !ANNOTATIONS.has(keyword) && !ignored.includes(keyword));
}

function without(schema: SchemaObject, keywords: readonly string[]): SchemaObject {
  return Object.fromEntries(Object.entries(schema).filter(([keyword]) => !keywords.includes(keyword)));
}

/** The subschemas that apply inside `schema`, with their paths; definitions apply only through `$ref`. */
function childSchemasWithPaths(schema: SchemaObject, path: string): Array<[JsonSchema, string]> {
  const children: Array<[JsonSchema, string]> = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if (SUBSCHEMA.has(keyword)) children.push([value as JsonSchema, `${path}.${keyword}`]);
    else if (SUBSCHEMA_LISTS.has(keyword) && Array.isArray(value)) (value as JsonSchema[]).forEach((child, index) => children.push([child, `${path}.${keyword}[${index}]`]));
    else if ((SUBSCHEMA_MAPS.has(keyword) || keyword === 'dependencies') && keyword !== '$defs' && keyword !== 'definitions' && isSchemaObject(value)) {
      for (const [key, child] of Object.entries(value)) if (!Array.isArray(child)) children.push([child as JsonSchema, `${path}.${keyword}${accessor(key)}`]);
    }
  }
  return children;
}

function setProperty(object: Record<string, unknown>, key: string, value: unknown): void {
  // Plain assignment to "__proto__" would change the prototype instead of adding a property.
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

function unique<T>(list: readonly T[]): T[] {
  return [...new Set(list)];
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

function greatestCommonDivisor(a: number, b: number): number {
  return b === 0 ? a : greatestCommonDivisor(b, a % b);
}

function decimalPlaces(value: number): number {
  if (Number.isInteger(value)) return 0;
  const [mantissa, exponent] = value.toExponential().split('e');
  const fraction = mantissa!.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent));
}

/** The smallest positive integer that is a multiple of `multipleOf` (1 without one). */
function integerStep(multipleOf: number | undefined): number | undefined {
  if (multipleOf === undefined) return 1;
  if (Number.isInteger(multipleOf)) return multipleOf;
  const places = decimalPlaces(multipleOf);
  if (places > 15) return undefined;
  const scale = 10 ** places;
  const scaled = Math.round(multipleOf * scale);
  return scaled / greatestCommonDivisor(scaled, scale);
}

function numericBounds(schema: SchemaObject): { low: number; lowExclusive: boolean; high: number; highExclusive: boolean } {
  let low = Number.NEGATIVE_INFINITY;
  let lowExclusive = false;
  let high = Number.POSITIVE_INFINITY;
  let highExclusive = false;
  if (typeof schema.minimum === 'number') low = schema.minimum;
  if (typeof schema.exclusiveMinimum === 'number' && schema.exclusiveMinimum >= low) [low, lowExclusive] = [schema.exclusiveMinimum, true];
  if (typeof schema.maximum === 'number') high = schema.maximum;
  if (typeof schema.exclusiveMaximum === 'number' && schema.exclusiveMaximum <= high) [high, highExclusive] = [schema.exclusiveMaximum, true];
  return { low, lowExclusive, high, highExclusive };
}

/**
 * The part of [low, high] to draw plausible values from: all of it when both ends are set,
 * `span` past the one end that is, or [origin, origin + span] when neither is.
 */
function plausibleWindow(low: number, high: number, span: number, origin: number): [number, number] {
  const lowSet = Number.isFinite(low);
  const highSet = Number.isFinite(high);
  if (lowSet && highSet) return Number.isFinite(high - low) ? [low, high] : [Math.max(low, -span), Math.min(high, span)];
  if (lowSet) return [low, low + span];
  if (highSet) return [high - span, high];
  return [origin, origin + span];
}

/** `text` cut or padded to a length in [minimum, maximum], keeping a trailing number when cutting. */
function fitLength(text: string, minimum: number, maximum: number): string {
  const characters = [...text];
  if (characters.length > maximum) {
    const suffix = [.../-?\d+$/.exec(text)?.[0] ?? ''];
    if (suffix.length > 0 && suffix.length < maximum) return [...characters.slice(0, maximum - suffix.length), ...suffix].join('');
    // Too short for the name: keep the end, where the varying number is.
    if (maximum === 0) return '';
    return (suffix.length > 0 ? characters.slice(-maximum) : characters.slice(0, maximum)).join('');
  }
  if (characters.length < minimum) {
    const padded: string[] = [...characters];
    while (padded.length < minimum) padded.push('-', ...characters);
    return padded.slice(0, minimum).join('');
  }
  return text;
}

function randomWord(random: Random, minimum: number, maximum: number): string {
  const length = random.integer(Math.max(minimum, Math.min(1, maximum)), Math.max(minimum, Math.min(maximum, 8)));
  let word = '';
  for (let index = 0; index < length; index++) word += String.fromCharCode(0x61 + random.integer(0, 25));
  return word;
}

/** Canonical JSON with sorted keys: equal for values ajv's uniqueItems treats as equal. */
function stableKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableKey).join(',')}]`;
  if (isSchemaObject(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${stableKey(value[key])}`).join(',')}}`;
  return JSON.stringify(value) ?? 'undefined';
}

/** `.properties.city`, `.anyOf[0]`, `["first name"]`: how paths are written in messages. */
function accessor(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** A JSON pointer's segments in access syntax; a segment of digits is taken as an array index. */
function accessPath(segments: readonly string[]): string {
  return segments.map((segment) => accessor(/^\d+$/.test(segment) ? Number(segment) : segment)).join('');
}

function unescapePointerSegment(segment: string): string {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Not percent-encoded after all; use it as written.
  }
  return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
}

function escapePointerSegment(segment: string): string {
  return segment
    .replace(/~/g, '~0')
    .replace(/\//g, '~1')
    .replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@]/gu, (character) => encodeURIComponent(character));
}
