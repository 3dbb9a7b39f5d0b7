import type { ErrorObject, Validator } from '../ajv.js';
import { seededRandom, type Random } from '../seeded-random.js';
import { UnsupportedSchemaError } from '../unsupported-schema-error.js';
import type { JsonSchema, SchemaObject } from './json-schema.js';
import { resolvePrepared } from './prepared-reference.js';

/** generateValue's options with every default filled in and checked; `cache` apart. */
export interface ResolvedGenerateOptions {
  seed: number;
  maxDepth: number;
  maxItems: number;
  maxLength: number;
  useExamples: boolean;
}

/** A `$ref` target entered while making a value, and the depth it was entered at. */
export interface ReferenceEntry {
  target: JsonSchema;
  depth: number;
}

/** One value being generated. */
export interface Site {
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

/**
 * One call of generateValue: the prepared schema, the resolved options, the one random stream
 * every choice draws from (in a fixed order, so a seed always gives the same value), and what the
 * call has worked out so far. Lives for that call only; what calls share is a GenerationCache.
 */
export class Generation {
  readonly random: Random;
  // Merged schemas are cached so each is compiled by ajv once per call.
  readonly merges = new Map<string, JsonSchema>();
  /** An anyOf/oneOf schema without that keyword, by keyword and identity. */
  readonly rests = new Map<string, SchemaObject>();
  /** Whether a schema contains a `$ref` anywhere inside it. */
  readonly referencing = new WeakMap<object, boolean>();
  readonly #references = new Map<string, { target: JsonSchema; path: string }>();
  readonly #identities = new Map<object, number>();

  constructor(
    readonly root: JsonSchema,
    readonly options: ResolvedGenerateOptions,
    private readonly validator: Validator,
    // Passed in rather than imported: the steps that make a value call back into this class.
    private readonly generateSite: (generation: Generation, site: Site) => unknown,
  ) {
    this.random = seededRandom(options.seed);
  }

  generateRoot(): unknown {
    const root = this.root;
    return this.generate({ schema: root, check: root, path: '', depth: 0, name: undefined, avoid: undefined, references: [{ target: root, depth: 0 }] });
  }

  generate(site: Site): unknown {
    return this.generateSite(this, site);
  }

  /**
   * Whether `target` was already entered for this very value (same depth, nothing nested since).
   * Throws when recursion has gone past maxDepth and comes round again: past maxDepth every choice
   * is the minimal one, so coming back means it would repeat forever.
   */
  alreadyEntered(site: Site, entered: readonly ReferenceEntry[], target: JsonSchema, path: string): boolean {
    if (entered.some((entry) => entry.target === target && entry.depth === site.depth)) return true;
    const limit = this.options.maxDepth;
    if (site.depth >= limit && entered.some((entry) => entry.target === target && entry.depth >= limit)) {
      throw new UnsupportedSchemaError(
        ['$ref'],
        site.path,
        `the schema at ${path || 'the root'} requires itself again at every level past maxDepth (${limit}), so a value would never end`,
      );
    }
    return false;
  }

  /** The schema a `$ref` of the prepared schema points at, and its path. */
  resolve(reference: string): { target: JsonSchema; path: string } {
    let resolved = this.#references.get(reference);
    if (!resolved) {
      resolved = resolvePrepared(this.root, reference);
      this.#references.set(reference, resolved);
    }
    return resolved;
  }

  /** A number standing for `object` within this call, to key merged schemas by their parts. */
  identity(object: SchemaObject): number {
    let identity = this.#identities.get(object);
    if (identity === undefined) {
      identity = this.#identities.size;
      this.#identities.set(object, identity);
    }
    return identity;
  }

  /** ajv's errors for `value` against `schema`, or undefined when it is valid. */
  errors(schema: JsonSchema, value: unknown): ErrorObject[] | undefined {
    const validate = this.validator.compile(schema);
    return validate(value) ? undefined : [...(validate.errors ?? [])];
  }
}
