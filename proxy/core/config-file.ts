import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compileNormalizers, describeSchemaErrors, isSecretHeader, pointerToPath, type Normalizer } from '../../recordings/internal.js';
import { ModeltapeError } from '../../core/internal.js';
import { ownSchema } from '../../schema/internal.js';
import type { ProxyLimits } from './proxy-options.js';

/** The name `modeltape` looks for in the working directory. */
export const CONFIG_FILE_NAME = 'modeltape.config.json';

/**
 * `modeltape.config.json`: how requests are keyed, and where upstreams are. Every field is
 * optional; fields starting with `_` are notes.
 *
 * ```json
 * {
 *   "_note": "prompt text carries today's date",
 *   "normalizers": [
 *     { "path": ".metadata.request_id" },
 *     { "pattern": "\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z", "placeholder": "<timestamp>" }
 *   ],
 *   "keyHeaders": ["anthropic-beta", "anthropic-version", "openai-beta"],
 *   "upstreams": { "vllm": "http://127.0.0.1:8000" },
 *   "limits": { "requestBodyBytes": 33554432, "responseBodyBytes": 268435456 },
 *   "maxAge": "90d",
 *   "stale": "fail",
 *   "append": false,
 *   "prices": { "my-finetune": { "input": 0.4, "cachedInput": 0.1, "output": 1.6 } }
 * }
 * ```
 */
export interface ModeltapeConfig {
  /** Rewrites applied to JSON request bodies before keying, at record and at replay alike. */
  normalizers?: Normalizer[];
  /** Request headers that are part of the key. @default anthropic-beta, anthropic-version, openai-beta */
  keyHeaders?: string[];
  /** Upstreams to add or override, by name. */
  upstreams?: Record<string, string>;
  /** Body sizes, client timeouts and the connection cap of the proxy; flags override them. */
  limits?: ProxyLimits;
  /** How old a tape's oldest exchange may be (`90d`, `12w`) before `report`, `verify` and `run` call it stale; `--max-age` overrides it. */
  maxAge?: string;
  /** What a stale tape does: `warn` on stderr, or `fail` (exit 1). @default "warn" */
  stale?: 'warn' | 'fail';
  /**
   * Record mode keeps the tape's recordings of a request and adds the run's after them, instead
   * of replacing them in place; `--append` sets it for one run. @default false
   */
  append?: boolean;
  /**
   * What keeps a replay's command off the network: `guard` (the default), `namespace` (a network
   * namespace of its own, Linux; the run fails where there is none) or `namespace-or-guard`;
   * `--network` overrides it. Recommended in CI: `namespace-or-guard`.
   */
  network?: 'guard' | 'namespace' | 'namespace-or-guard';
  /** Local ports a replay's network namespace lets through besides the proxy (a CI's database); `--allow-port` adds to them. */
  allowPorts?: number[];
  /** USD per million tokens by model name, for `modeltape report`: they add to the shipped price table and win over it. */
  prices?: Record<string, { input: number; cachedInput?: number; cacheWrite?: number; output: number }>;
}

const notes = { '^_': {} };
const configSchema = {
  type: 'object',
  additionalProperties: false,
  patternProperties: notes,
  properties: {
    normalizers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        patternProperties: notes,
        properties: {
          path: { type: 'string', minLength: 1 },
          pattern: { type: 'string', minLength: 1 },
          flags: { type: 'string' },
          in: { enum: ['body', 'path'] },
          placeholder: { type: 'string' },
        },
        oneOf: [{ required: ['path'] }, { required: ['pattern'] }],
        dependentRequired: { in: ['pattern'] },
      },
    },
    keyHeaders: { type: 'array', items: { type: 'string', minLength: 1 } },
    upstreams: { type: 'object', additionalProperties: { type: 'string' } },
    maxAge: { type: 'string', pattern: '^[0-9]{1,5}[dw]?$' },
    stale: { enum: ['warn', 'fail'] },
    append: { type: 'boolean' },
    network: { enum: ['guard', 'namespace', 'namespace-or-guard'] },
    allowPorts: { type: 'array', items: { type: 'integer', minimum: 1, maximum: 65535 } },
    prices: {
      type: 'object',
      patternProperties: notes,
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        patternProperties: notes,
        required: ['input', 'output'],
        properties: Object.fromEntries(['input', 'cachedInput', 'cacheWrite', 'output'].map((name) => [name, { type: 'number', minimum: 0 }])),
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      patternProperties: notes,
      properties: Object.fromEntries(
        ['requestBodyBytes', 'responseBodyBytes', 'headersTimeoutMs', 'requestTimeoutMs', 'maxConnections'].map((name) => [
          name,
          { type: 'integer', minimum: 1 },
        ]),
      ),
    },
  },
};
const configShape = ownSchema(configSchema);

/** One problem in a config file, at the line and column (both from 1) where it is. */
export interface ConfigProblem {
  line: number;
  column: number;
  /** The field in JSON access syntax (`.normalizers[0].path`); empty for the whole file or a syntax error. */
  field: string;
  message: string;
}

/** A config file that is not JSON or does not fit the config schema. Every problem has its line and column. */
export class ConfigFileError extends ModeltapeError {
  readonly file: string;
  readonly problems: ConfigProblem[];

  constructor(file: string, text: string, problems: ConfigProblem[], summary: string, fix: string, options?: { cause?: unknown }) {
    const shown = problems.slice(0, 10).map((problem) => `  ${file}:${problem.line}:${problem.column}: ${problem.message}\n${excerpt(text, problem)}`);
    if (problems.length > shown.length) shown.push(`  … and ${problems.length - shown.length} more`);
    super('config_invalid', `Config file ${file} ${summary}\n${shown.join('\n')}\n${fix}`, options);
    this.file = file;
    this.problems = problems;
  }
}

/**
 * Reads a config file: the one named, or `modeltape.config.json` in `cwd` when there is one.
 * Returns an empty config (and no file) when there is none. Throws {@link ConfigFileError} naming
 * the file, the line and column, and the field (and the nearest known one) when it is not JSON or
 * does not fit the schema.
 */
export function loadConfig(file?: string, cwd: string = process.cwd()): { config: ModeltapeConfig; file: string | undefined } {
  const path = file === undefined ? resolve(cwd, CONFIG_FILE_NAME) : resolve(cwd, file);
  if (!existsSync(path)) {
    if (file !== undefined) throw new ModeltapeError('config_not_found', `Config file ${file} does not exist.`);
    return { config: {}, file: undefined };
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'EISDIR' ? 'is a directory, not a file' : `cannot be read: ${(error as Error).message}`;
    throw new ModeltapeError(
      'config_invalid',
      `Config file ${path} ${reason}. Pass a JSON file with --config, or remove the path to use ${CONFIG_FILE_NAME} from the current directory.`,
      { cause: error },
    );
  }
  // An editor's byte order mark is not part of the JSON.
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  const located = locateJson(text);
  if ('syntax' in located) {
    const { offset, message, fix } = located.syntax;
    throw new ConfigFileError(path, text, [{ ...lineAndColumn(text, offset), field: '', message }], 'is not valid JSON:', fix);
  }
  const value: unknown = JSON.parse(text);
  const shapeErrors = configShape.errorsOf(value);
  const schemaProblems = shapeErrors === undefined ? meaningProblems(value as ModeltapeConfig) : describeSchemaErrors(shapeErrors, path, 1, 'config');
  if (schemaProblems.length > 0) {
    const problems = schemaProblems
      .map(({ field, message }): ConfigProblem => {
        // An unknown field is shown at its name; anything else at its value, or at the closest enclosing value there is.
        const offset = (message.startsWith('unknown field') ? located.keys.get(field) : undefined) ?? enclosingValue(located.values, field);
        return { ...lineAndColumn(text, offset), field, message };
      })
      .sort((a, b) => a.line - b.line || a.column - b.column);
    throw new ConfigFileError(
      path,
      text,
      problems,
      `has ${problems.length} problem${problems.length === 1 ? '' : 's'}:`,
      'Fix the fields named above (known fields: normalizers, keyHeaders, upstreams, limits, maxAge, stale, append, network, allowPorts, prices; fields starting with "_" are notes), or pass another file with --config.',
    );
  }
  return { config: value as ModeltapeConfig, file: path };
}

/** What the schema cannot say: a pattern that is no regular expression, a path that is no JSON path, a credential header as a key header. */
function meaningProblems(config: ModeltapeConfig): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  for (const [index, normalizer] of (config.normalizers ?? []).entries()) {
    try {
      compileNormalizers([normalizer]);
    } catch (error) {
      const field = `.normalizers[${index}].${'path' in normalizer ? 'path' : 'pattern'}`;
      problems.push({ field, message: `"${field}": ${(error as Error).message.replace(/^Normalizer 0 has /, '')}` });
    }
  }
  for (const [index, name] of (config.keyHeaders ?? []).entries()) {
    if (isSecretHeader(name.toLowerCase()))
      problems.push({
        field: `.keyHeaders[${index}]`,
        message: `".keyHeaders[${index}]": "${name}" carries a credential and cannot be part of a request key (it would have to be written to the tape)`,
      });
  }
  return problems;
}

interface JsonLocations {
  /** Where each value starts, by its path in JSON access syntax ('' is the whole document). */
  values: Map<string, number>;
  /** Where each property's name starts, by the property's path. */
  keys: Map<string, number>;
}

interface JsonSyntaxProblem {
  offset: number;
  message: string;
  /** The next step, e.g. `Put the property name in double quotes: "normalizers".` */
  fix: string;
}

class SyntaxProblem extends Error {
  constructor(readonly problem: JsonSyntaxProblem) {
    super(problem.message);
  }
}

/**
 * Scans JSON text for where each value and property name starts, or for the first syntax error
 * and its offset. JSON.parse still builds the value: this only says where things are, because
 * V8's own syntax errors do not always give a position.
 */
function locateJson(text: string): JsonLocations | { syntax: JsonSyntaxProblem } {
  const locations: JsonLocations = { values: new Map(), keys: new Map() };
  let at = 0;
  const fail = (message: string, fix: string, offset = at): never => {
    throw new SyntaxProblem({ offset, message, fix });
  };
  const found = (): string => (at >= text.length ? 'the end of the file' : JSON.stringify(text[at]));
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
    if (text.startsWith('//', at) || text.startsWith('/*', at))
      fail('JSON has no comments', 'Remove the comment, or move it into a note field such as "_note".');
  };
  const string = (): string => {
    const start = at++;
    while (at < text.length && text[at] !== '"') {
      const code = text.charCodeAt(at);
      if (code < 0x20)
        fail(
          code === 0x0a ? 'a string runs past the end of its line' : 'a string holds a raw control character',
          code === 0x0a ? 'Close the string with a double quote, or write a line break as \\n.' : 'Write it as an escape such as \\t or \\u0001.',
        );
      if (text[at] === '\\') {
        const escape = text[at + 1];
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6)))
            fail('\\u must be followed by four hex digits', 'Write the character as \\u followed by four hex digits, e.g. \\u00e9.');
          at += 6;
          continue;
        }
        if (escape === undefined || !'"\\/bfnrt'.includes(escape))
          fail(
            `invalid escape \\${escape ?? ''}`,
            'In JSON a backslash starts one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX: write a literal backslash as \\\\ (a pattern\'s \\d is "\\\\d").',
          );
        at += 2;
        continue;
      }
      at++;
    }
    if (at >= text.length) fail('a string is never closed', 'Close it with a double quote.', start);
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  // Values are addressed by JSON pointer while scanning, and stored by path, as schema problems name them.
  const value = (pointer: string): void => {
    space();
    locations.values.set(pointerToPath(pointer), at);
    const char = text[at];
    if (char === '{') {
      at++;
      space();
      if (text[at] === '}') {
        at++;
        return;
      }
      for (;;) {
        space();
        if (text[at] !== '"') {
          if (text[at] === '}') fail('a comma before "}"', 'Remove the trailing comma.', lastComma(text, at));
          if (text[at] === "'") fail('a property name in single quotes', 'JSON takes double quotes: write "name", not \'name\'.');
          const bare = /^[A-Za-z_$][\w$]*/.exec(text.slice(at))?.[0];
          if (bare !== undefined) fail(`the property name ${bare} is not in double quotes`, `Put the property name in double quotes: "${bare}".`);
          fail(`expected a property name in double quotes, found ${found()}`, 'Write each property as "name": value.');
        }
        const keyAt = at;
        const key = string();
        const keyPointer = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        locations.keys.set(pointerToPath(keyPointer), keyAt);
        space();
        if (text[at] !== ':') fail(`expected ":" after the property name "${key}", found ${found()}`, `Write "${key}": value.`);
        at++;
        value(keyPointer);
        space();
        if (text[at] === ',') {
          at++;
          continue;
        }
        if (text[at] === '}') {
          at++;
          return;
        }
        fail(
          `expected "," or "}" after the value of "${key}", found ${found()}`,
          at < text.length && text[at] === '"'
            ? 'Add the missing comma between the two properties.'
            : 'Separate properties with commas and close the object with "}".',
        );
      }
    }
    if (char === '[') {
      at++;
      space();
      if (text[at] === ']') {
        at++;
        return;
      }
      for (let index = 0; ; index++) {
        space();
        if (text[at] === ']') fail('a comma before "]"', 'Remove the trailing comma.', lastComma(text, at));
        value(`${pointer}/${index}`);
        space();
        if (text[at] === ',') {
          at++;
          continue;
        }
        if (text[at] === ']') {
          at++;
          return;
        }
        fail(`expected "," or "]" after an array element, found ${found()}`, 'Separate elements with commas and close the array with "]".');
      }
    }
    if (char === '"') {
      string();
      return;
    }
    const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    number.lastIndex = at;
    if (char !== undefined && /[-\d]/.test(char) && number.test(text)) {
      at = number.lastIndex;
      return;
    }
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, at)) {
        at += literal.length;
        return;
      }
    }
    if (char === "'") fail('a string in single quotes', 'JSON takes double quotes: write "text", not \'text\'.');
    fail(`expected a value, found ${found()}`, 'A value is a "string", a number, true, false, null, an object {…} or an array […].');
  };
  try {
    value('');
    space();
    if (at < text.length) fail(`unexpected ${found()} after the end of the JSON value`, 'A config file holds one JSON object: remove what follows it.');
  } catch (error) {
    if (error instanceof SyntaxProblem) return { syntax: error.problem };
    throw error;
  }
  return locations;
}

/** Where the value at `field` starts, or the closest enclosing value that exists (a missing field is reported at its object). */
function enclosingValue(values: ReadonlyMap<string, number>, field: string): number {
  let path = field;
  for (;;) {
    const offset = values.get(path);
    if (offset !== undefined) return offset;
    if (path === '') return 0;
    path = path.replace(/(?:\.[A-Za-z_$][\w$]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])$/, '');
  }
}

function lastComma(text: string, before: number): number {
  const comma = text.lastIndexOf(',', before);
  return comma < 0 ? before : comma;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index >= 0 && index < offset; index = text.indexOf('\n', index + 1)) {
    line++;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** The problem's line with a caret under its column, cut to the neighbourhood of a long line. */
function excerpt(text: string, { line, column }: { line: number; column: number }): string {
  const full = (text.split('\n')[line - 1] ?? '').replace(/\r$/, '');
  const from = Math.max(0, column - 60);
  const shown = `${from > 0 ? '…' : ''}${full.slice(from, from + 100)}${full.length > from + 100 ? '…' : ''}`;
  const caret = column - 1 - from + (from > 0 ? 1 : 0);
  const gutter = String(line);
  return `    ${gutter} | ${shown.replace(/\t/g, ' ')}\n    ${' '.repeat(gutter.length)} | ${' '.repeat(caret)}^`;
}
