import { canonicalJson } from '../recordings/internal.js';
import { abbreviate, ModeltapeError, isRecord } from '../core/internal.js';
import { acceptRaw, ARGUMENT_DEPTH_CAP, parseToolArguments, ToolBox, type Json, type Tool, type ToolContext } from '../runtime/internal.js';
import { GenerationCache, compileForeignSchema, createLenientValidator, generateValue, seededRandom, type ValidateFunction } from '../schema/internal.js';

/** The keywords the kit generates values for. Any other is refused by name. */
export const FUZZ_KEYWORDS = [
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'minProperties',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'prefixItems',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'anyOf',
  'oneOf',
  '$ref',
] as const;
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  '$schema',
  '$id',
  '$defs',
  'definitions',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
const SUPPORTED = new Set<string>(FUZZ_KEYWORDS);

export interface FuzzOptions {
  /** @default 0 */
  seed?: number;
  /** How many values (valid) or near misses (invalid, after the boundary cases). @default 20 */
  count?: number;
  /** @default 3 */
  maxItems?: number;
  /** @default 16 */
  maxLength?: number;
  /** @default 6 */
  maxDepth?: number;
}

/** An input the runtime must refuse. `raw` is exactly what a model would send; `value` is the parsed near miss, when there is one. */
export interface InvalidCase {
  description: string;
  raw: string | Uint8Array;
  value?: Json;
}

/** The schema uses keywords the kit does not generate for; they are named rather than guessed at. */
export class FuzzUnsupportedError extends ModeltapeError {
  readonly keywords: string[];
  constructor(keywords: Array<{ keyword: string; path: string }>) {
    const names = [...new Set(keywords.map(({ keyword }) => keyword))];
    super(
      'fuzz_unsupported_keyword',
      `The kit cannot generate values for ${names.map((name) => `"${name}"`).join(', ')} (at ${keywords
        .slice(0, 5)
        .map(({ keyword, path }) => `${path || '(root)'}.${keyword}`)
        .join(', ')}).\nIt generates for: ${FUZZ_KEYWORDS.join(', ')}. Check those arguments with cases of your own.`,
    );
    this.keywords = names;
  }
}

/** A JSON Schema as fuzzing takes it: an object, or `true`/`false`. */
export type FuzzSchema = boolean | Record<string, unknown>;
type Schema = FuzzSchema;

function unsupported(schema: unknown, path = ''): Array<{ keyword: string; path: string }> {
  if (typeof schema !== 'object' || schema === null) return [];
  const found: Array<{ keyword: string; path: string }> = [];
  const node = schema as Record<string, unknown>;
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword.startsWith('x-')) continue;
    if (!SUPPORTED.has(keyword) && !ANNOTATIONS.has(keyword)) found.push({ keyword, path });
    if (keyword === '$ref' && (typeof value !== 'string' || !value.startsWith('#'))) found.push({ keyword: '$ref (not local)', path });
  }
  if (isRecord(node.properties)) for (const [key, child] of Object.entries(node.properties)) found.push(...unsupported(child, `${path}.properties.${key}`));
  for (const keyword of ['$defs', 'definitions'])
    if (isRecord(node[keyword]))
      for (const [key, child] of Object.entries(node[keyword] as object)) found.push(...unsupported(child, `${path}.${keyword}.${key}`));
  for (const keyword of ['items', 'additionalProperties']) if (isRecord(node[keyword])) found.push(...unsupported(node[keyword], `${path}.${keyword}`));
  for (const keyword of ['prefixItems', 'anyOf', 'oneOf'])
    if (Array.isArray(node[keyword])) (node[keyword] as unknown[]).forEach((child, index) => found.push(...unsupported(child, `${path}.${keyword}[${index}]`)));
  return found;
}

function compile(schema: Schema): ValidateFunction {
  const problems = unsupported(schema);
  if (problems.length > 0) throw new FuzzUnsupportedError(problems);
  return compileForeignSchema(createLenientValidator(), schema);
}

/**
 * Valid values for a schema: deterministic for a seed, bounded, each checked against the compiled
 * schema. The first is the most plausible one (the schema's own example when it has one); the rest
 * explore: optional properties left out, every branch of an anyOf or oneOf, numbers at their
 * bounds, strings and arrays at their shortest and longest.
 */
function valid(schema: Schema, options: FuzzOptions = {}): Json[] {
  const validate = compile(schema);
  const count = options.count ?? 20;
  const bounds = { maxItems: options.maxItems ?? 3, maxLength: options.maxLength ?? 16, maxDepth: options.maxDepth ?? 6 };
  const seen = new Set<string>();
  const values: Json[] = [];
  const keep = (value: Json): void => {
    const text = canonicalJson(value);
    if (seen.has(text) || !validate(value)) return;
    seen.add(text);
    values.push(value);
  };
  try {
    keep(generateValue(schema, { seed: options.seed ?? 0, ...bounds, useExamples: true, cache: new GenerationCache() }) as Json);
  } catch {
    // the explorer below still tries
  }
  for (let attempt = 0; attempt < count * 10 && values.length < count; attempt++) {
    const random = seeded(((options.seed ?? 0) * 2654435761 + attempt * 40503 + 1) >>> 0);
    const value = explore(schema, schema, random, 0, bounds);
    if (value !== NOTHING) keep(value as Json);
  }
  if (values.length === 0)
    throw new ModeltapeError('fuzz_no_value', 'The kit could not generate a single value the schema accepts: its constraints may contradict each other.');
  return values;
}

const NOTHING = Symbol('nothing');
type Random = () => number;

/** The kit's draws: schema/'s mulberry32, as a plain function. */
function seeded(seed: number): Random {
  const random = seededRandom(seed);
  return () => random.next();
}

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function between(random: Random, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

/** One value drawn from a schema, biased towards its edges; NOTHING when it cannot make one. */
function explore(
  root: Schema,
  schemaIn: Schema,
  random: Random,
  depth: number,
  bounds: { maxItems: number; maxLength: number; maxDepth: number },
): Json | typeof NOTHING {
  // A schema that can only recurse (a required reference to itself) has no finite value.
  if (depth > bounds.maxDepth + 16) return NOTHING;
  const schema = resolve(root, schemaIn);
  if (schema === true || (isRecord(schema) && Object.keys(schema).every((keyword) => ANNOTATIONS.has(keyword))))
    return pick(random, [null, 0, 'x', true, {}, []] as Json[]);
  if (!isRecord(schema)) return NOTHING;
  if (schema.const !== undefined) return schema.const as Json;
  if (Array.isArray(schema.enum)) return pick(random, schema.enum as Json[]);
  for (const keyword of ['anyOf', 'oneOf']) {
    if (!Array.isArray(schema[keyword])) continue;
    const branches = schema[keyword] as Schema[];
    // At the depth bound, a branch that does not nest further (no reference, no container) ends it.
    const flat = branches.filter((branch) => !nests(root, branch));
    return explore(root, pick(random, depth >= bounds.maxDepth && flat.length > 0 ? flat : branches), random, depth, bounds);
  }
  const types = schema.type === undefined ? inferTypes(schema) : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const type = pick(random, types);
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return random() < 0.5;
    case 'integer':
    case 'number': {
      const integer = type === 'integer';
      const step = integer ? 1 : 0.25;
      let low = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + step : -1000;
      let high = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - step : 1000;
      if (integer) [low, high] = [Math.ceil(low), Math.floor(high)];
      if (low > high) return NOTHING;
      const roll = random();
      if (roll < 0.2) return low;
      if (roll < 0.4) return high;
      if (roll < 0.5 && low <= 0 && high >= 0) return 0;
      const value = low + random() * (high - low);
      return integer ? Math.round(value) : Math.min(high, Math.max(low, Math.round(value * 100) / 100));
    }
    case 'string': {
      const low = typeof schema.minLength === 'number' ? schema.minLength : 0;
      const high = Math.max(low, Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : bounds.maxLength, Math.max(bounds.maxLength, low)));
      const length = random() < 0.3 ? pick(random, [low, high]) : between(random, low, high);
      const alphabet = ['a', 'b', 'Z', '0', ' ', '-', 'é', '語', '😀'];
      let text = '';
      while ([...text].length < length) text += pick(random, alphabet);
      return text;
    }
    case 'array': {
      const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [];
      const low = Math.max(typeof schema.minItems === 'number' ? schema.minItems : 0, 0);
      const cap = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
      const high = depth >= bounds.maxDepth ? low : Math.max(low, Math.min(cap, Math.max(bounds.maxItems, low)));
      const length = random() < 0.3 ? pick(random, [low, high]) : between(random, low, high);
      const items: Json[] = [];
      const seen = new Set<string>();
      for (let index = 0, tries = 0; items.length < length && tries < length * 8; tries++) {
        const itemSchema = index < prefix.length ? prefix[index]! : schema.items === undefined ? true : (schema.items as Schema);
        const item = explore(root, itemSchema, random, depth + 1, bounds);
        if (item === NOTHING) return NOTHING;
        if (schema.uniqueItems === true) {
          const key = canonicalJson(item);
          if (seen.has(key)) continue;
          seen.add(key);
        }
        items.push(item as Json);
        index++;
      }
      return items.length >= low ? items : NOTHING;
    }
    case 'object': {
      const properties = isRecord(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      const result: Record<string, Json> = {};
      const maxProperties = typeof schema.maxProperties === 'number' ? schema.maxProperties : Number.POSITIVE_INFINITY;
      const names = [...required, ...Object.keys(properties).filter((name) => !required.includes(name) && depth + 1 < bounds.maxDepth && random() < 0.6)];
      for (const name of names) {
        if (Object.keys(result).length >= maxProperties && !required.includes(name)) break;
        const value = explore(root, (properties[name] as Schema) ?? true, random, depth + 1, bounds);
        if (value === NOTHING) {
          if (required.includes(name)) return NOTHING;
          continue;
        }
        Object.defineProperty(result, name, { value, enumerable: true, writable: true, configurable: true });
      }
      const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
      for (const name of Object.keys(properties)) {
        if (Object.keys(result).length >= minProperties) break;
        if (name in result) continue;
        const value = explore(root, properties[name] as Schema, random, depth + 1, bounds);
        if (value !== NOTHING) result[name] = value as Json;
      }
      if (schema.additionalProperties !== false && isRecord(schema.additionalProperties) && random() < 0.3 && Object.keys(result).length < maxProperties) {
        const extra = explore(root, schema.additionalProperties as Schema, random, depth + 1, bounds);
        if (extra !== NOTHING) result.extra_property = extra as Json;
      }
      return result;
    }
    default:
      return NOTHING;
  }
}

function nests(root: Schema, branch: Schema): boolean {
  if (isRecord(branch) && typeof branch.$ref === 'string') return true;
  const resolved = resolve(root, branch);
  if (!isRecord(resolved)) return false;
  const types = resolved.type === undefined ? inferTypes(resolved) : Array.isArray(resolved.type) ? (resolved.type as string[]) : [resolved.type as string];
  return types.every((type) => type === 'object' || type === 'array');
}

function inferTypes(schema: Record<string, unknown>): string[] {
  if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema) return ['object'];
  if ('items' in schema || 'prefixItems' in schema || 'minItems' in schema) return ['array'];
  if ('minLength' in schema || 'maxLength' in schema) return ['string'];
  if ('minimum' in schema || 'maximum' in schema || 'exclusiveMinimum' in schema || 'exclusiveMaximum' in schema) return ['number'];
  return ['null', 'boolean', 'integer', 'string', 'object', 'array'];
}

/**
 * Inputs the runtime must refuse, each confirmed invalid. The boundary cases come first (nesting
 * to 300 past the depth cap of 256, a duplicate key, invalid UTF-8, an unpaired surrogate,
 * truncated JSON, two values), then near misses of valid values: one keyword broken at a time.
 */
function invalid(schema: Schema, options: FuzzOptions = {}): InvalidCase[] {
  const validate = compile(schema);
  const bases = valid(schema, { ...options, count: 3 });
  const base = bases[0] ?? {};
  const text = JSON.stringify(base);
  const cases: InvalidCase[] = [];
  const nested = `${'['.repeat(300)}${']'.repeat(300)}`;
  cases.push({ description: `nesting to 300 levels, past the depth cap of ${ARGUMENT_DEPTH_CAP}`, raw: isRecord(base) ? `{"deep":${nested}}` : nested });
  if (isRecord(base) && Object.keys(base).length > 0) {
    const [key, value] = Object.entries(base)[0]!;
    cases.push({ description: `a duplicate key ${JSON.stringify(key)}`, raw: `{${JSON.stringify(key)}:${JSON.stringify(value)},${text.slice(1)}` });
  } else cases.push({ description: 'a duplicate key "a"', raw: '{"a":1,"a":2}' });
  const bytes = Buffer.from(isRecord(base) ? `{"text":"x","_":"y"}` : '"xy"');
  const broken = new Uint8Array([...bytes.subarray(0, bytes.length - 3), 0xc3, 0x28, ...bytes.subarray(bytes.length - 3)]);
  cases.push({ description: 'invalid UTF-8 (0xC3 0x28)', raw: broken });
  // Under a key of its own, so that nothing but the surrogate is wrong with it.
  cases.push({
    description: 'an unpaired surrogate (\\ud800)',
    raw: isRecord(base) ? `{"_modeltape_surrogate":"\\ud800"${text.length > 2 ? `,${text.slice(1)}` : '}'}` : '"\\ud800"',
  });
  // Cut inside a container or string, never after a whole number ("65" cut to "6" is still JSON).
  const container = text.startsWith('{') || text.startsWith('[') || text.startsWith('"') ? text : `[${text}]`;
  cases.push({ description: 'truncated JSON', raw: container.slice(0, -1) });
  cases.push({ description: 'two JSON values', raw: `${text} ${text}` });
  for (const entry of cases) {
    if (parseToolArguments(entry.raw).ok)
      throw new ModeltapeError(
        'fuzz_boundary_valid',
        `The kit's boundary case "${entry.description}" parses as arguments: this is a bug in the kit, please report it with the schema.`,
      );
  }

  const seen = new Set<string>();
  const limit = options.count ?? 20;
  const nearMisses: InvalidCase[] = [];
  for (const value of bases) {
    for (const mutation of mutations(schema as Schema, schema as Schema, value, '')) {
      if (nearMisses.length >= limit) break;
      const mutated = apply(value, mutation.path, mutation.replace);
      const key = canonicalJson(mutated ?? null);
      if (mutated === undefined || seen.has(key) || validate(mutated)) continue;
      seen.add(key);
      nearMisses.push({ description: `at ${mutation.display || '(arguments)'}: ${mutation.what}`, raw: JSON.stringify(mutated), value: mutated });
    }
  }
  return [...cases, ...nearMisses];
}

const REMOVE = Symbol('remove');
interface Mutation {
  path: Array<string | number>;
  display: string;
  what: string;
  replace: Json | typeof REMOVE;
}

function resolve(root: Schema, schema: Schema): Schema {
  let node = schema;
  for (let hops = 0; hops < 32 && isRecord(node) && typeof node.$ref === 'string'; hops++) {
    const pointer = node.$ref
      .replace(/^#/, '')
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
    let target: unknown = root;
    for (const part of pointer) target = isRecord(target) ? target[part] : undefined;
    node = (target as Schema) ?? true;
  }
  return node;
}

const SAMPLES: Record<string, Json> = { string: 'not-a-number', number: 12345.5, integer: 12345, boolean: true, null: null, object: {}, array: [] };

function* mutations(root: Schema, schemaIn: Schema, value: Json, display: string, path: Array<string | number> = []): Generator<Mutation> {
  const schema = resolve(root, schemaIn);
  if (!isRecord(schema)) return;
  const at = (what: string, replace: Json | typeof REMOVE, extra: Array<string | number> = [], shown = display): Mutation => ({
    path: [...path, ...extra],
    display: shown,
    what,
    replace,
  });
  if (schema.const !== undefined)
    yield at(
      `a value other than the const ${JSON.stringify(schema.const)}`,
      typeof schema.const === 'number' ? schema.const + 1 : typeof schema.const === 'string' ? `${schema.const}_not` : 'not-the-const',
    );
  if (Array.isArray(schema.enum)) {
    const numbers = schema.enum.every((item) => typeof item === 'number');
    yield at(`a value outside the enum`, numbers ? Math.max(...(schema.enum as number[])) + 1 : `not-one-of-${schema.enum.length}`);
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  if (types.length > 0) {
    const wrong = ['string', 'integer', 'boolean', 'object', 'array', 'null', 'number'].find(
      (type) => !types.includes(type) && !(type === 'integer' && types.includes('number')),
    );
    if (wrong !== undefined) yield at(`${article(wrong)} where the schema wants ${types.join(' or ')}`, SAMPLES[wrong]!);
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && schema.minLength > 0)
      yield at(`a string of ${schema.minLength - 1} characters, below minLength ${schema.minLength}`, 'x'.repeat(schema.minLength - 1));
    if (typeof schema.maxLength === 'number')
      yield at(`a string of ${schema.maxLength + 1} characters, past maxLength ${schema.maxLength}`, 'x'.repeat(schema.maxLength + 1));
  }
  if (typeof value === 'number') {
    const step = types.includes('integer') && !types.includes('number') ? 1 : 0.5;
    if (typeof schema.minimum === 'number') yield at(`${schema.minimum - step}, below minimum ${schema.minimum}`, schema.minimum - step);
    if (typeof schema.exclusiveMinimum === 'number')
      yield at(`${schema.exclusiveMinimum}, not above exclusiveMinimum ${schema.exclusiveMinimum}`, schema.exclusiveMinimum);
    if (typeof schema.maximum === 'number') yield at(`${schema.maximum + step}, above maximum ${schema.maximum}`, schema.maximum + step);
    if (typeof schema.exclusiveMaximum === 'number')
      yield at(`${schema.exclusiveMaximum}, not below exclusiveMaximum ${schema.exclusiveMaximum}`, schema.exclusiveMaximum);
    if (types.length === 1 && types[0] === 'integer') yield at('1.5 where the schema wants an integer', 1.5);
  }
  if (isRecord(value)) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    for (const name of required) if (name in value) yield at(`the required property ${JSON.stringify(name)} removed`, REMOVE, [name], `${display}.${name}`);
    if (schema.additionalProperties === false)
      yield at('an unknown property "unexpected_property" (additionalProperties is false)', 'x', ['unexpected_property'], `${display}.unexpected_property`);
    if (typeof schema.maxProperties === 'number' && schema.additionalProperties !== false) {
      const extra: Record<string, Json> = { ...value };
      for (let index = 0; Object.keys(extra).length <= schema.maxProperties; index++) extra[`extra_${index}`] = index;
      yield at(`${Object.keys(extra).length} properties, past maxProperties ${schema.maxProperties}`, extra);
    }
    if (typeof schema.minProperties === 'number' && schema.minProperties > 0)
      yield at(
        `${schema.minProperties - 1} properties, below minProperties ${schema.minProperties}`,
        Object.fromEntries(Object.entries(value).slice(0, schema.minProperties - 1)),
      );
    for (const [name, child] of Object.entries(value)) {
      if (name in properties) yield* mutations(root, properties[name] as Schema, child, `${display}.${name}`, [...path, name]);
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && schema.minItems > 0)
      yield at(`${schema.minItems - 1} items, below minItems ${schema.minItems}`, value.slice(0, schema.minItems - 1));
    if (typeof schema.maxItems === 'number') {
      const longer = [...value];
      while (longer.length <= schema.maxItems) longer.push(value[longer.length % Math.max(1, value.length)] ?? null);
      yield at(`${longer.length} items, past maxItems ${schema.maxItems}`, longer);
    }
    if (schema.uniqueItems === true && value.length > 0) yield at('a duplicate item (uniqueItems)', [...value, value[0]!]);
    const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [];
    for (let index = 0; index < Math.min(value.length, 3); index++) {
      const itemSchema = index < prefix.length ? prefix[index]! : isRecord(schema.items) ? (schema.items as Schema) : undefined;
      if (itemSchema !== undefined) yield* mutations(root, itemSchema, value[index]!, `${display}[${index}]`, [...path, index]);
    }
  }
  for (const keyword of ['anyOf', 'oneOf']) {
    if (!Array.isArray(schema[keyword])) continue;
    for (const sample of Object.values(SAMPLES)) yield at(`${JSON.stringify(sample)}, which no branch of ${keyword} accepts`, sample);
  }
}

function article(type: string): string {
  return (
    { string: 'a string', integer: 'an integer', boolean: 'a boolean', object: 'an object', array: 'an array', null: 'null', number: 'a number' }[type] ?? type
  );
}

function apply(value: Json, path: ReadonlyArray<string | number>, replace: Json | typeof REMOVE): Json | undefined {
  if (path.length === 0) return replace === REMOVE ? undefined : replace;
  const copy = structuredClone(value);
  let node: Json = copy;
  for (const step of path.slice(0, -1)) {
    node = (node as Record<string | number, Json>)[step as never]!;
    if (node === undefined || node === null || typeof node !== 'object') return undefined;
  }
  const last = path[path.length - 1]!;
  if (replace === REMOVE) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else delete (node as Record<string, Json>)[last as string];
  } else if (Array.isArray(node)) node[last as number] = replace;
  else Object.defineProperty(node, last as string, { value: replace, enumerable: true, writable: true, configurable: true });
  return copy;
}

export interface FuzzCheckTool {
  tool: string;
  valid: number;
  invalid: number;
  problems: string[];
}

export interface FuzzCheckReport {
  tools: FuzzCheckTool[];
  /** Inputs checked in all. */
  checked: number;
  problems: string[];
  assertHolds(): void;
}

export class FuzzCheckError extends ModeltapeError {
  constructor(message: string) {
    super('fuzz_check_failed', message);
  }
}

/**
 * For every tool: generated valid arguments pass the runtime's acceptance and reach the tool
 * without it throwing (`run: false` checks acceptance only: the tool is then never called), and
 * every invalid input is refused by that same acceptance, so the tool never sees it.
 */
async function check(tools: ToolBox | readonly Tool[], options: FuzzOptions & { run?: boolean } = {}): Promise<FuzzCheckReport> {
  const box = tools instanceof ToolBox ? tools : new ToolBox(tools);
  const results: FuzzCheckTool[] = [];
  for (const tool of box.tools()) {
    const result: FuzzCheckTool = { tool: tool.name, valid: 0, invalid: 0, problems: [] };
    results.push(result);
    let validValues: Json[];
    let invalidCases: InvalidCase[];
    try {
      validValues = valid(tool.parameters as Schema, options);
      invalidCases = invalid(tool.parameters as Schema, options);
    } catch (error) {
      result.problems.push((error as Error).message);
      continue;
    }
    for (const [index, value] of validValues.entries()) {
      const acceptance = acceptRaw(box, tool.name, JSON.stringify(value));
      result.valid++;
      if (!acceptance.accepted) {
        result.problems.push(`valid arguments were refused: ${abbreviate(value, 120)}: ${acceptance.reason}`);
        continue;
      }
      if (options.run === false) continue;
      const controller = new AbortController();
      const context: ToolContext = {
        runId: 'fuzz',
        step: 0,
        operationId: `fuzz/${tool.name}/${index}`,
        attempt: 1,
        signal: controller.signal,
        now: async () => Date.UTC(2026, 0, 1),
        newId: async () => `fuzz-id-${index}`,
      };
      // The tool's own timeout holds here too, as in the runtime: a hang is a problem, not a stuck check.
      const timeoutMs = tool.timeoutMs ?? 30_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => {
          controller.abort(new Error('timed out'));
          resolve('timeout');
        }, timeoutMs);
      });
      try {
        const ended = await Promise.race([Promise.resolve().then(() => tool.run(value, context)), timedOut]);
        if (ended === 'timeout') result.problems.push(`did not finish within its timeoutMs (${timeoutMs} ms) on valid arguments ${abbreviate(value, 120)}`);
      } catch (error) {
        result.problems.push(`crashed on valid arguments ${abbreviate(value, 120)}: ${(error as Error)?.name}: ${(error as Error)?.message}`);
      } finally {
        clearTimeout(timer);
      }
    }
    for (const invalidCase of invalidCases) {
      result.invalid++;
      if (acceptRaw(box, tool.name, invalidCase.raw).accepted)
        result.problems.push(
          `accepted invalid arguments (${invalidCase.description}): ${typeof invalidCase.raw === 'string' ? abbreviate(invalidCase.raw, 120) : `${invalidCase.raw.length} bytes`}`,
        );
    }
  }
  const problems = results.flatMap((result) => result.problems.map((problem) => `${result.tool}: ${problem}`));
  const checked = results.reduce((sum, result) => sum + result.valid + result.invalid, 0);
  return {
    tools: results,
    checked,
    problems,
    assertHolds(): void {
      if (results.length === 0 || checked === 0) {
        throw new FuzzCheckError(
          `fuzz.check was given no tool it could generate for, so it checked nothing.${problems.length > 0 ? `\n${problems.map((problem) => `  ✗ ${problem}`).join('\n')}` : ''}`,
        );
      }
      if (problems.length > 0)
        throw new FuzzCheckError(
          `fuzz.check found ${problems.length} problem${problems.length === 1 ? '' : 's'} in ${checked} inputs:\n${problems
            .slice(0, 20)
            .map((problem) => `  ✗ ${problem}`)
            .join('\n')}`,
        );
    },
  };
}

/** Schema fuzzing: what {@link fuzz} does. */
export interface Fuzz {
  /** Values valid against `schema`, generated and explored (deterministic for `options.seed`). */
  valid(schema: FuzzSchema, options?: FuzzOptions): Json[];
  /** Values each breaking one constraint of `schema`, with the constraint it breaks. */
  invalid(schema: FuzzSchema, options?: FuzzOptions): InvalidCase[];
  /** Checks each tool's argument checking (and, with `run`, the tool) against valid and invalid values. */
  check(tools: ToolBox | readonly Tool[], options?: FuzzOptions & { run?: boolean }): Promise<FuzzCheckReport>;
}

/** Schema fuzzing: `fuzz.valid(schema)`, `fuzz.invalid(schema)`, `fuzz.check(tools)`. */
export const fuzz: Fuzz = { valid, invalid, check };
