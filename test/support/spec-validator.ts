// Validates values against the providers' real OpenAPI schemas, for tests.
//
// The schemas are extracts of the official specs kept in test/fixtures/specs (see PROVENANCE.md
// there; regenerate with `node test/fixtures/specs/extract-specs.mjs`). The extracts are copied
// verbatim; the adaptations below turn the OpenAPI dialect into something Ajv's JSON Schema 2020
// validator checks the way the providers mean it. They happen here, at load time:
//
// * OpenAPI 3.0 `nullable: true` (112 left in the full OpenAI spec, 5 in the extract; the Anthropic
//   spec uses `anyOf:[…,{type:'null'}]` instead) → `"null"` added to `type` (and to `enum`), or the
//   schema wrapped as `anyOf:[<schema>, {type:'null'}]` when it has no plain `type` (`$ref`/`allOf`/
//   `anyOf`/`oneOf`/`const` siblings). JSON Schema validators ignore `nullable`, and Ajv's own
//   partial support neither adds null to an enum nor accepts `nullable` without `type`.
//   `nullable: false` is dropped.
// * `discriminator` is removed (and Ajv's `discriminator` option is off): the `oneOf`/`anyOf`
//   branches it annotates are validated as plain `oneOf`/`anyOf`.
// * Draft 2019-09 `$recursiveRef: "#"` (OpenAI `CompoundFilter`, which Ajv's 2020 dialect would
//   silently ignore) → `$ref` to the enclosing component.
// * `validateFormats: false`: the specs use custom formats (`unixtime`, `int64`, `double`, `float`,
//   `binary`, `byte`, `int32`) that are descriptions, not checks.
// * Other OpenAPI keywords (`x-*` extensions, `example`, `deprecated`, `readOnly`, `title`,
//   `x-stainless-*`, …) are annotations; `strict: false` makes Ajv ignore the unknown ones.
//
// Known spec-vs-wire mismatches (the real OpenAI API sends things its own spec rejects). These are
// NOT loosened here: the fake provider must emit spec-valid shapes, and recordings of the real API
// should be validated leniently or not at all.
// * Responses `ResponseErrorEvent` is flat (`{type:"error", code, message, param,
//   sequence_number}`); the wire nests them (`{type:"error", error:{type, code, message, param}}`).
//   The `openai` SDK reads `data.error ?? data`, so the flat spec shape works with it.
// * `Response.user` is typed `string`, but the wire sends `"user": null` (omit it instead).
// * `response.created` / `response.in_progress` carry `usage: null` on the wire, but
//   `Response.usage` (`ResponseUsage`) is not nullable (omit `usage` until the terminal event).
// * `ResponseErrorCode` is a closed enum without e.g. `insufficient_quota`.
// * Anthropic (Stainless-generated spec) marks every field required, nullable ones included
//   (`Message.container`, `stop_details`, `ResponseTextBlock.citations`, `Usage.server_tool_use`,
//   `inference_geo`, `service_tier`, `ErrorResponse.request_id`, …), so older real captures that
//   omit them fail. The stream's `event: error` payload is not a `MessageStreamEvent` branch at
//   all; validate it as `ErrorResponse`.
// * Realtime: the wire sends `null` where the spec has an object or array (`usage` and
//   `status_details` in `response.created`, a session's `include`, `audio.input.transcription` and
//   `noise_reduction`, a user audio part's `transcript`); the fake leaves those fields out.
// * Ollama (docs/openapi.yaml) marks almost no response field required and closes no object, so its
//   schemas check the types of the fields an answer has (`done` a boolean, the counts integers,
//   `message.role` "assistant"), not that they are there: the stream grammars check presence.
import { readFileSync } from 'node:fs';
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

export type SpecProvider = 'openai' | 'anthropic' | 'ollama';

export interface SpecValidationResult {
  valid: boolean;
  errors: string[];
}

interface SchemaFile {
  source: Record<string, unknown>;
  schemas: Record<string, unknown>;
}

// ajv is CommonJS; under NodeNext its class arrives on `.default` of the module object.
const Ajv2020 = (Ajv2020Module as unknown as { default: typeof Ajv2020Module.default }).default;
type AjvInstance = InstanceType<typeof Ajv2020>;

const FILES: Record<SpecProvider, URL> = {
  openai: new URL('../fixtures/specs/openai-schemas.json', import.meta.url),
  anthropic: new URL('../fixtures/specs/anthropic-schemas.json', import.meta.url),
  ollama: new URL('../fixtures/specs/ollama-schemas.json', import.meta.url),
};

/** `$id` under which each provider's schemas are registered. */
const SPEC_ID: Record<SpecProvider, string> = {
  openai: 'https://modeltape.test/specs/openai.json',
  anthropic: 'https://modeltape.test/specs/anthropic.json',
  ollama: 'https://modeltape.test/specs/ollama.json',
};

// Keywords whose value is a map of subschemas / a list of subschemas / one subschema. Everything
// else (`enum`, `const`, `default`, `example(s)`, `x-*`, `required`, …) is data and is copied as is.
const SCHEMA_MAP_KEYS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
const SCHEMA_LIST_KEYS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_KEYS = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
]);
const COMPOSITION_KEYS = ['$ref', 'allOf', 'anyOf', 'oneOf', 'not', 'const', 'if'] as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Returns an adapted deep copy of one OpenAPI schema (see the header comment). `componentName` is
 * the `components.schemas` entry it belongs to: draft 2019-09 `$recursiveRef: "#"` (used by
 * OpenAI's `CompoundFilter`, unknown to Ajv's 2020 dialect and therefore silently ignored) is
 * rewritten to a `$ref` to that component, which is what its `$recursiveAnchor` means there.
 */
export function adaptOpenApiSchema(node: unknown, componentName?: string): unknown {
  if (!isObject(node)) return node;

  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (SCHEMA_MAP_KEYS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, adaptOpenApiSchema(v, componentName)]));
    } else if (SCHEMA_LIST_KEYS.has(key) && Array.isArray(value)) {
      out[key] = value.map((v) => adaptOpenApiSchema(v, componentName));
    } else if (SCHEMA_KEYS.has(key)) {
      out[key] = adaptOpenApiSchema(value, componentName);
    } else if (key === 'discriminator') {
      continue;
    } else if (key === '$recursiveAnchor') {
      continue;
    } else if (key === '$recursiveRef' && value === '#' && componentName !== undefined) {
      out.$ref = `#/components/schemas/${encodeURIComponent(componentName)}`;
    } else {
      out[key] = value;
    }
  }

  if (typeof out.nullable !== 'boolean') return out;
  const nullable = out.nullable;
  delete out.nullable;
  if (!nullable) return out;

  const hasComposition = COMPOSITION_KEYS.some((k) => k in out);
  if (!hasComposition && out.type !== undefined) {
    const types = Array.isArray(out.type) ? [...(out.type as unknown[])] : [out.type];
    if (!types.includes('null')) types.push('null');
    out.type = types;
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  if (!hasComposition) {
    // `nullable` without `type`: the schema accepts any type already, unless it has an enum.
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

/** Adapts every entry of a `components.schemas` map. */
export function adaptOpenApiComponents(schemas: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, adaptOpenApiSchema(schema, name)]));
}

interface Loaded {
  ajv: AjvInstance;
  names: Set<string>;
  raw: Record<string, unknown>;
  source: Record<string, unknown>;
  compiled: Map<string, ValidateFunction>;
}

const loaded = new Map<SpecProvider, Loaded>();

function load(provider: SpecProvider): Loaded {
  const existing = loaded.get(provider);
  if (existing) return existing;
  const file = JSON.parse(readFileSync(FILES[provider], 'utf8')) as SchemaFile;
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    validateFormats: false,
    discriminator: false,
  });
  ajv.addSchema({ $id: SPEC_ID[provider], components: { schemas: adaptOpenApiComponents(file.schemas) } }, SPEC_ID[provider]);
  const entry: Loaded = {
    ajv,
    names: new Set(Object.keys(file.schemas)),
    raw: file.schemas,
    source: file.source,
    compiled: new Map(),
  };
  loaded.set(provider, entry);
  return entry;
}

/** Provenance block of the extract (repo, commit, sha256, …). */
export function specSource(provider: SpecProvider): Record<string, unknown> {
  return load(provider).source;
}

/** Names of every schema available for `provider` (the extract's transitive closure). */
export function specSchemaNames(provider: SpecProvider): string[] {
  return [...load(provider).names];
}

function validatorFor(provider: SpecProvider, schemaName: string): ValidateFunction {
  const spec = load(provider);
  const cached = spec.compiled.get(schemaName);
  if (cached) return cached;
  if (!spec.names.has(schemaName)) {
    throw new Error(`${provider} spec extract has no schema "${schemaName}" (add it as a root in ` + 'test/fixtures/specs/extract-specs.mjs and regenerate)');
  }
  const ref = `${SPEC_ID[provider]}#/components/schemas/${encodeURIComponent(schemaName)}`;
  const validate = spec.ajv.getSchema(ref);
  if (!validate) throw new Error(`could not compile ${ref}`);
  spec.compiled.set(schemaName, validate);
  return validate;
}

function formatError(e: ErrorObject): string {
  const at = e.instancePath === '' ? '(root)' : e.instancePath;
  const params = Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : '';
  return `${at} ${e.message ?? e.keyword}${params} [schema ${e.schemaPath}]`;
}

const REF_PREFIX = '#/components/schemas/';

/**
 * For a failed union (`oneOf`/`anyOf` of `$ref`s, e.g. `ResponseStreamEvent`, `MessageStreamEvent`),
 * the branch the value meant to be: the one whose discriminator property (`discriminator.
 * propertyName`, else `type`) has a `const`/`enum` containing the value's. Ajv reports every
 * branch's errors, which buries the useful ones; the caller validates against this branch too.
 */
function intendedBranch(spec: Loaded, schemaName: string, value: unknown): string | undefined {
  const schema = spec.raw[schemaName];
  if (!isObject(schema) || !isObject(value)) return undefined;
  const branches = (schema.oneOf ?? schema.anyOf) as unknown;
  if (!Array.isArray(branches)) return undefined;
  const disc = isObject(schema.discriminator) ? schema.discriminator : undefined;
  const prop = typeof disc?.propertyName === 'string' ? disc.propertyName : 'type';
  const tag = value[prop];
  if (typeof tag !== 'string') return undefined;
  if (isObject(disc?.mapping) && typeof disc.mapping[tag] === 'string') {
    const target = disc.mapping[tag] as string;
    if (target.startsWith(REF_PREFIX)) return decodeURIComponent(target.slice(REF_PREFIX.length));
  }
  const matches: string[] = [];
  for (const branch of branches) {
    if (!isObject(branch) || typeof branch.$ref !== 'string' || !branch.$ref.startsWith(REF_PREFIX)) continue;
    const name = decodeURIComponent(branch.$ref.slice(REF_PREFIX.length));
    const target = spec.raw[name];
    const props = isObject(target) && isObject(target.properties) ? target.properties : undefined;
    const p = props?.[prop];
    if (!isObject(p)) continue;
    if (p.const === tag || (Array.isArray(p.enum) && p.enum.includes(tag))) matches.push(name);
  }
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * Validates `value` against `components.schemas.<schemaName>` of the provider's spec extract.
 * `schemaName` may be any schema in the extract (a root such as `ResponseStreamEvent` or one of
 * its members such as `ResponseCreatedEvent`). On failure `errors` lists every Ajv error as
 * `<instancePath> <message> <params> [schema <schemaPath>]`; for a union, the errors of the branch
 * selected by the value's `type` come first (prefixed `<Branch>:`), then the union's own.
 */
export function validateAgainstSpec(provider: SpecProvider, schemaName: string, value: unknown): SpecValidationResult {
  const validate = validatorFor(provider, schemaName);
  const valid = validate(value) === true;
  if (valid) return { valid, errors: [] };
  const errors = (validate.errors ?? []).map(formatError);
  const branch = intendedBranch(load(provider), schemaName, value);
  if (branch === undefined) return { valid, errors };
  const branchValidate = validatorFor(provider, branch);
  branchValidate(value);
  const branchErrors = (branchValidate.errors ?? []).map((e) => `${branch}: ${formatError(e)}`);
  return { valid, errors: [...branchErrors, ...errors] };
}

function excerpt(value: unknown, max = 1500): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/** Throws an Error listing every Ajv error (instance path, message, schema path) and the value. */
export function assertMatchesSpec(provider: SpecProvider, schemaName: string, value: unknown): void {
  const { valid, errors } = validateAgainstSpec(provider, schemaName, value);
  if (valid) return;
  const shown = errors.slice(0, 40);
  const more = errors.length > shown.length ? `\n  … and ${errors.length - shown.length} more` : '';
  throw new Error(
    `value does not match ${provider} spec schema ${schemaName} (${errors.length} errors):\n  ` + shown.join('\n  ') + more + `\nvalue: ${excerpt(value)}`,
  );
}
