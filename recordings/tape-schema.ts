import { ownSchema, nearestName, type ErrorObject } from '../schema/internal.js';
import type { TapeProblem } from './errors.js';
import { excerpt, propertyPath } from '../core/internal.js';
import { isFramingHeader } from './redaction.js';
import { CLIENT_HEADERS, EXCHANGE_SOURCES, READABLE_TAPE_SCHEMA_VERSIONS, STREAM_FORMATS } from './tape-format.js';

// Closed objects: only the listed properties, plus `_notes`.
const notes = { '^_': {} };

function closed(properties: Record<string, object>, required: string[], extra: object = {}): object {
  return { type: 'object', properties, required, additionalProperties: false, patternProperties: notes, ...extra };
}

const sha256 = { type: 'string', pattern: '^[0-9a-f]{64}$' };

const bodyForms = { json: {}, text: { type: 'string' }, base64: { type: 'string', pattern: '^[A-Za-z0-9+/]*={0,2}$' } };
const oneBodyForm = { minProperties: 1, oneOf: [{ required: ['json'] }, { required: ['text'] }, { required: ['base64'] }] };

// A request body is keyed from its `json`; its bytes are fingerprinted by `request.bodySha256`.
const requestBody = closed(bodyForms, [], oneBodyForm);

// A paths-to-values map of a JSON layout: JSON access paths into the body ("" for the body).
const byPath = (values: object): object => ({ type: 'object', propertyNames: { pattern: '^$|^[.[]' }, additionalProperties: values });

const jsonLayout = closed(
  {
    indent: { type: 'string', pattern: '^[ \t]+$' },
    spaced: { const: true },
    ascii: { const: true },
    trailing: { type: 'string', pattern: '^[ \t\r\n]+$' },
    keyOrder: byPath({ type: 'array', items: { type: 'string' }, uniqueItems: true }),
    literals: byPath({ type: 'string', minLength: 1 }),
  },
  [],
  { not: { required: ['indent', 'spaced'] } },
);

// A response body may say how to give back its exact bytes (schemaVersion 2).
const responseBody = closed({ ...bodyForms, layout: jsonLayout, sha256 }, [], {
  ...oneBodyForm,
  dependentRequired: { layout: ['json', 'sha256'], sha256: ['json'] },
});

const normalizer = closed(
  {
    path: { type: 'string', minLength: 1 },
    pattern: { type: 'string', minLength: 1 },
    flags: { type: 'string', pattern: '^[dimsuy]*$' },
    in: { enum: ['body', 'path'] },
    placeholder: { type: 'string' },
  },
  [],
  { oneOf: [{ required: ['path'] }, { required: ['pattern'] }], dependentRequired: { in: ['pattern'] } },
);

const keyRules = closed(
  {
    headers: { type: 'array', items: { type: 'string', pattern: '^[a-z0-9-]+$' } },
    normalizers: { type: 'array', items: normalizer },
  },
  ['headers', 'normalizers'],
);

const headerSchema = closed(
  {
    schemaVersion: { enum: [...READABLE_TAPE_SCHEMA_VERSIONS] },
    writtenBy: { type: 'string', minLength: 1 },
    keyRules,
  },
  ['schemaVersion', 'writtenBy', 'keyRules'],
);

// An AWS event stream message, readable (see EventStreamEvent): string headers and a JSON or text
// payload, the inner payload of a `bytes` member decoded beside it.
const eventStreamBytes = closed({ json: {}, text: { type: 'string' } }, [], {
  minProperties: 1,
  oneOf: [{ required: ['json'] }, { required: ['text'] }],
});
const eventStreamEvent = closed(
  {
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    json: {},
    text: { type: 'string' },
    bytes: eventStreamBytes,
  },
  ['headers'],
  { oneOf: [{ required: ['json'] }, { required: ['text'] }], dependentRequired: { bytes: ['json'] } },
);

const frame = closed({ atMs: { type: 'number', minimum: 0 }, text: { type: 'string' }, base64: { type: 'string' }, event: eventStreamEvent }, ['atMs'], {
  oneOf: [{ required: ['text'] }, { required: ['base64'] }, { required: ['event'] }],
});

const exchangeSchema = closed(
  {
    key: sha256,
    ordinal: { type: 'integer', minimum: 0 },
    upstream: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' },
    source: { enum: [...EXCHANGE_SOURCES] },
    recordedAt: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$' },
    request: closed(
      {
        method: { type: 'string', pattern: '^[A-Z]+$' },
        path: { type: 'string', pattern: '^/' },
        query: {
          type: 'array',
          items: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'string' }], minItems: 2, maxItems: 2 },
        },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        body: requestBody,
        bodySha256: sha256,
        client: { type: 'object', propertyNames: { enum: [...CLIENT_HEADERS] }, additionalProperties: { type: 'string' }, minProperties: 1 },
      },
      ['method', 'path', 'query', 'headers', 'bodySha256'],
    ),
    response: closed(
      {
        status: { type: 'integer', minimum: 100, maximum: 999 },
        headers: {
          type: 'object',
          additionalProperties: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        },
        body: responseBody,
        stream: closed({ format: { enum: [...STREAM_FORMATS] }, frames: { type: 'array', items: frame } }, ['format', 'frames']),
        answeredModel: { type: 'string', minLength: 1 },
      },
      ['status', 'headers'],
      { not: { required: ['body', 'stream'] } },
    ),
  },
  ['key', 'ordinal', 'upstream', 'source', 'request', 'response'],
);

const headerShape = ownSchema(headerSchema);
const exchangeShape = ownSchema(exchangeSchema);

/** Checks a parsed header line against the closed schema. */
export function checkHeaderLine(value: unknown, file: string, line: number): TapeProblem[] {
  const errors = headerShape.errorsOf(value);
  return errors === undefined ? [] : describeSchemaErrors(errors, file, line, 'header');
}

/**
 * Compiles the exchange line's schema now, not at the first line checked: a replay opening a
 * tape calls it, so that its first hit does not pay for the compile (tens of milliseconds, once
 * per process).
 */
export function prepareExchangeCheck(): void {
  exchangeShape.errorsOf(null);
}

/** Checks a parsed exchange line against the closed schema, and its response headers against what HTTP lets a server send. */
export function checkExchangeLine(value: unknown, file: string, line: number): TapeProblem[] {
  const errors = exchangeShape.errorsOf(value);
  const problems = errors === undefined ? [] : describeSchemaErrors(errors, file, line, 'exchange');
  return [...problems, ...responseHeaderProblems(value, file, line), ...recordedAtProblems(value, file, line)];
}

// The last day found to be one a calendar has.
let lastRealDay: string | undefined;

// The pattern lets through a day no month has (2026-02-30): a date must be itself once parsed.
function recordedAtProblems(value: unknown, file: string, line: number): TapeProblem[] {
  const day = (value as { recordedAt?: unknown } | null)?.recordedAt;
  // A recording writes today's date on every exchange, and a tape's lines mostly share a few days.
  if (day === lastRealDay) return [];
  // A day the schema's pattern refuses is reported by the schema.
  if (typeof day !== 'string' || !/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/.test(day)) return [];
  const parsed = new Date(`${day}T00:00:00Z`);
  if (!Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === day) {
    lastRealDay = day;
    return [];
  }
  return [
    {
      file,
      line,
      field: '.recordedAt',
      message: `".recordedAt" is ${JSON.stringify(day)}, a day no calendar has; write the UTC day it was recorded on (YYYY-MM-DD), or delete the field.`,
    },
  ];
}

// What Node's server refuses to send (its checkIsHttpToken and checkInvalidHeaderChar). A
// hand-edited header holding a line break would fail every replay of its exchange, and could
// inject headers into the response where another server sent it.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const INVALID_HEADER_CHARACTER = /[^\t\x20-\x7e\x80-\xff]/;

function responseHeaderProblems(value: unknown, file: string, line: number): TapeProblem[] {
  const response = (value as { response?: { status?: unknown; headers?: unknown } } | null)?.response;
  const problems: TapeProblem[] = [];
  // 1xx answers are informational (103 Early Hints reach the client while recording): what a tape
  // keeps is the final answer, and a client that is sent 101 or 102 as one breaks.
  if (typeof response?.status === 'number' && response.status >= 100 && response.status < 200) {
    problems.push({
      file,
      line,
      field: '.response.status',
      message: `".response.status" is ${response.status}, an informational status; a recorded answer is the final one (200 or more), and a client sent ${response.status} as its answer breaks. Fix the status or delete the line.`,
    });
  }
  const headers = response?.headers;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return problems;
  for (const [name, entry] of Object.entries(headers)) {
    const values = Array.isArray(entry) ? entry : [entry];
    // Nearly every header is fine: its path is built only for a problem.
    if (HEADER_NAME.test(name) && !isFramingHeader(name) && values.every((item) => typeof item !== 'string' || !INVALID_HEADER_CHARACTER.test(item))) continue;
    const field = propertyPath('.response.headers', name);
    if (!HEADER_NAME.test(name)) {
      problems.push({
        file,
        line,
        field,
        message: `${JSON.stringify(name)} is not a header name HTTP allows (letters, digits and !#$%&'*+.^_\`|~-), so no replay could send it. Fix the name or delete the line.`,
      });
      continue;
    }
    if (isFramingHeader(name)) {
      problems.push({
        file,
        line,
        field,
        message: `"${field}" describes one connection's framing, which modeltape never records (replay frames each answer itself, and this header would contradict it). Delete the header.`,
      });
      continue;
    }
    values.forEach((item, index) => {
      if (typeof item !== 'string') return;
      const bad = INVALID_HEADER_CHARACTER.exec(item);
      if (bad === null) return;
      const what =
        bad[0] === '\r' || bad[0] === '\n' ? 'a line break' : `the character U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      problems.push({
        file,
        line,
        field: Array.isArray(entry) ? `${field}[${index}]` : field,
        message: `"${Array.isArray(entry) ? `${field}[${index}]` : field}" holds ${what}, which no HTTP header may carry (Node refuses to send it, so every replay of this exchange would fail). Fix the value or delete the line.`,
      });
    });
  }
  return problems;
}

const keyRulesShape = ownSchema(keyRules);

/** Checks key rules against the header schema; the problems are addressed from `.keyRules`. */
export function checkKeyRules(value: unknown): TapeProblem[] {
  const errors = keyRulesShape.errorsOf(value);
  return errors === undefined ? [] : describeSchemaErrors(errors, '(key rules)', 0, 'key rules');
}

/**
 * Turns ajv's errors into one readable problem per field. The `required` errors raised inside a
 * oneOf branch are reported once, by their oneOf ("must hold exactly one of …"); a oneOf/not
 * summary is left out only when a direct error at or below its path already explains it.
 */
export function describeSchemaErrors(errors: ErrorObject[], file: string, line: number, what: string): TapeProblem[] {
  const direct = errors.filter((error) => error.keyword !== 'oneOf' && error.keyword !== 'not' && !error.schemaPath.includes('/oneOf/'));
  const chosen = errors.filter((error) => {
    // The name that failed is reported by its own error, which says which name it was.
    if (error.keyword === 'propertyNames') return false;
    if (error.keyword === 'oneOf' || error.keyword === 'not') {
      return !direct.some((other) => other.instancePath === error.instancePath || other.instancePath.startsWith(`${error.instancePath}/`));
    }
    return !error.schemaPath.includes('/oneOf/');
  });
  const problems = new Map<string, TapeProblem>();
  for (const error of chosen) {
    const problem = describeError(error, file, line, what);
    const id = `${problem.field}\u0000${problem.message}`;
    if (!problems.has(id)) problems.set(id, problem);
  }
  return [...problems.values()];
}

function describeError(error: ErrorObject, file: string, line: number, what: string): TapeProblem {
  const field = pointerToPath(error.instancePath);
  const where = field === '' ? `the ${what}` : `"${field}"`;
  const badName = (error as ErrorObject & { propertyName?: string }).propertyName;
  if (badName !== undefined) {
    return {
      file,
      line,
      field: propertyPath(field, badName),
      message: `"${field}" names "${badName}", which is not a JSON path into the body (write ".id", "[0]", or "" for the body itself)`,
    };
  }
  switch (error.keyword) {
    case 'additionalProperties': {
      const unknown = String((error.params as { additionalProperty: string }).additionalProperty);
      const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const nearest = nearestName(unknown, known);
      const fullField = propertyPath(field, unknown);
      return {
        file,
        line,
        field: fullField,
        message:
          `unknown field "${fullField}" in ${what}` +
          (nearest ? `; did you mean "${propertyPath(field, nearest)}"?` : `; known fields here: ${known.join(', ')}.`) +
          ' (Fields starting with "_" are notes and allowed anywhere.)',
      };
    }
    case 'required': {
      const missing = propertyPath(field, String((error.params as { missingProperty: string }).missingProperty));
      return { file, line, field: missing, message: `missing required field "${missing}" in ${what}` };
    }
    case 'oneOf': {
      const options = ((error.schema as Array<{ required: string[] }>) ?? []).map((branch) => branch.required.join('+'));
      return { file, line, field, message: `${where} must hold exactly one of ${options.join(', ')}` };
    }
    case 'not': {
      const both = ((error.schema as { required?: string[] } | undefined)?.required ?? []).join(' and ');
      return { file, line, field, message: `${where} must not hold both ${both}` };
    }
    case 'dependentRequired': {
      const { property, missingProperty } = error.params as { property: string; missingProperty: string };
      return {
        file,
        line,
        field: propertyPath(field, property),
        message: `"${propertyPath(field, property)}" needs "${propertyPath(field, missingProperty)}" beside it`,
      };
    }
    case 'const':
      return {
        file,
        line,
        field,
        message: `${where} must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)} (found ${brief(error.data)})`,
      };
    case 'enum': {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
      if (field === '.schemaVersion') {
        const versions = `${READABLE_TAPE_SCHEMA_VERSIONS.slice(0, -1).join(', ')} or ${READABLE_TAPE_SCHEMA_VERSIONS.at(-1)}`;
        return {
          file,
          line,
          field,
          message: `${where} must be ${versions} (found ${brief(error.data)}); this modeltape reads tape schemaVersion ${versions}. A newer tape needs a newer modeltape.`,
        };
      }
      return { file, line, field, message: `${where} must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')} (found ${brief(error.data)})` };
    }
    default:
      return { file, line, field, message: `${where} ${error.message ?? 'is invalid'} (found ${brief(error.data)})` };
  }
}

/** `/request/query/0/1` → `.request.query[0][1]` */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : /^[A-Za-z_$][\w$]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`))
    .join('');
}

function brief(value: unknown): string {
  return excerpt(JSON.stringify(value) ?? String(value), 60);
}
