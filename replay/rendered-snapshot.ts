import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  HOP_BY_HOP_HEADERS,
  canonicalJson,
  isSecretHeader,
  isSecretQueryParameter,
  redactPathQuery,
  safeFileName,
  sortKeys,
  type RecordedRequest,
} from '../recordings/internal.js';
import { diffJson, formatDifferences, maskValue } from '../core/internal.js';
import { isCi } from '../proxy/internal.js';
import { ReplayAssertionError } from './assertions.js';
import { currentTest } from './test-context.js';

export interface RenderedSnapshotOptions {
  /** The folder that holds `__snapshots__/`. @default the running test file's folder, else the working directory */
  dir?: string;
  /** The environment to read `MODELTAPE_UPDATE` and `CI` from. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where update mode says what it wrote. @default writes to stderr */
  log?: (message: string) => void;
}

/** What {@link assertRenderedSnapshot} did. */
export interface RenderedSnapshotResult {
  /** The snapshot file. */
  file: string;
  /**
   * `created` or `rewritten` when update mode wrote the file (it says so through `log`);
   * undefined when the snapshot already held this request.
   */
  wrote: 'created' | 'rewritten' | undefined;
}

/**
 * Checks the request the code rendered against a golden file,
 * `__snapshots__/<name>.request.json`. The file is written (or rewritten) only when
 * `MODELTAPE_UPDATE=1` is set and `CI` is not: then the assertion passes and says on `log` what it
 * wrote, so a recording run is green the first time. Under CI it only compares, and a missing
 * snapshot is a failure.
 *
 * A snapshot holds what the code under test decided, the same on every machine: headers the HTTP
 * client, the SDK or the runtime add are left out (`user-agent`, every `x-stainless-*`,
 * `x-goog-api-client`, any header whose value names a runtime version such as `node/v20.20.2`, and
 * the transport's own `host`, `content-length`, `accept-encoding`, `connection`, …), in the new
 * request and in the stored snapshot alike. Every other header stays, so one the code sets is
 * checked. Credentials never reach the file: secret headers and query parameters are dropped,
 * and a key-shaped string inside a value is replaced by a marker naming its kind
 * (`"Use [openai-key 44 chars] for this"`; a binary body's bytes are masked before they are
 * encoded), the rest of the value kept.
 *
 * `request` is a body (any JSON value), a request `{ method, url | path, headers, body }`, or a
 * recorded request from a tape.
 *
 * Like every modeltape assertion, it takes what is checked first: `(request, name, options?)`.
 */
export function assertRenderedSnapshot(request: unknown, name: string, options: RenderedSnapshotOptions = {}): RenderedSnapshotResult {
  if (typeof name !== 'string') {
    throw new TypeError(
      `assertRenderedSnapshot(request, name, options?) takes the request first and the snapshot's name second; the name given is ${typeof name === 'object' ? 'an object' : typeof name}. Earlier versions took the name first: swap the two arguments.`,
    );
  }
  const env = options.env ?? process.env;
  const update = env.MODELTAPE_UPDATE === '1' && !isCi(env);
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const test = currentTest();
  const dir = options.dir ?? (test ? dirname(test.file) : process.cwd());
  const file = join(dir, '__snapshots__', `${safeFileName(name)}.request.json`);
  const actual = sortKeys(redact(asSnapshot(request)));
  const text = `${JSON.stringify(actual, null, 2)}\n`;
  if (!existsSync(file)) {
    if (update) {
      write(file, text);
      log(`modeltape: wrote the rendered-request snapshot ${file} (new, MODELTAPE_UPDATE=1). Review it and commit it.`);
      return { file, wrote: 'created' };
    }
    throw new ReplayAssertionError(
      `No rendered-request snapshot ${file}.${isCi(env) ? ' Under CI snapshots are only compared, never written.' : ''} Write it by running the test with MODELTAPE_UPDATE=1 (not in CI), review it, and commit it.`,
    );
  }
  let stored: unknown;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ReplayAssertionError(
      `The rendered-request snapshot ${file} is not valid JSON (${(error as Error).message}). Fix it, or delete it and write it again with MODELTAPE_UPDATE=1.`,
    );
  }
  // Compared as values, so line endings or spacing from a checkout never count as a change; and
  // without per-machine headers, so a snapshot written before they were left out still matches.
  const existing = withoutMachineHeaders(stored);
  if (canonicalJson(existing) === canonicalJson(actual)) {
    if (update && canonicalJson(stored) !== canonicalJson(actual)) {
      write(file, text);
      log(`modeltape: rewrote the rendered-request snapshot ${file} without its per-machine headers (MODELTAPE_UPDATE=1). Review it and commit it.`);
      return { file, wrote: 'rewritten' };
    }
    return { file, wrote: undefined };
  }
  const differences = formatDifferences(diffJson(existing, actual)).map((line) => `  ${line}`);
  if (update) {
    write(file, text);
    log(`modeltape: rewrote the rendered-request snapshot ${file} (MODELTAPE_UPDATE=1):\n${differences.join('\n')}\nReview it and commit it.`);
    return { file, wrote: 'rewritten' };
  }
  throw new ReplayAssertionError(
    `The rendered request differs from its snapshot ${file}:\n${differences.join('\n')}\n` +
      'If the change is intended, run the test with MODELTAPE_UPDATE=1 (not in CI) and commit the new snapshot.',
  );
}

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

// A request is anything with a method, url or path; a recorded request has its sha256; anything
// else is a body.
function asSnapshot(request: unknown): Record<string, unknown> {
  if (typeof request !== 'object' || request === null || request instanceof Uint8Array || Array.isArray(request)) return { body: bodyOf(request) };
  const record = request as Record<string, unknown>;
  if ('bodySha256' in record) {
    const recorded = record as unknown as RecordedRequest;
    const body =
      recorded.body === undefined ? undefined : 'json' in recorded.body ? recorded.body.json : 'text' in recorded.body ? recorded.body.text : recorded.body;
    return { method: recorded.method, path: recorded.path, query: recorded.query, headers: recorded.headers, body };
  }
  if ('method' in record || 'url' in record || 'path' in record) {
    const snapshot: Record<string, unknown> = { ...record };
    if ('headers' in record) snapshot.headers = headersOf(record.headers);
    if ('body' in record) snapshot.body = bodyOf(record.body);
    return snapshot;
  }
  return { body: bodyOf(request) };
}

function bodyOf(body: unknown): unknown {
  if (typeof body === 'string') return parseMaybe(body);
  if (body instanceof Uint8Array) return { base64: Buffer.from(maskValue(body)).toString('base64') };
  if (body instanceof ArrayBuffer) return { base64: Buffer.from(maskValue(new Uint8Array(body))).toString('base64') };
  return body;
}

// Headers come as a record, [name, value] pairs or a Headers instance: one lowercase record.
function headersOf(headers: unknown): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  if (headers instanceof Headers) headers.forEach((value, name) => (result[name] = value));
  else if (Array.isArray(headers)) for (const [name, value] of headers as Array<[string, unknown]>) result[String(name).toLowerCase()] = value;
  else if (typeof headers === 'object' && headers !== null) for (const [name, value] of Object.entries(headers)) result[name.toLowerCase()] = value;
  return result;
}

function redact(snapshot: Record<string, unknown>): unknown {
  const value: Record<string, unknown> = { ...snapshot };
  if (value.headers && typeof value.headers === 'object') {
    const headers: Record<string, unknown> = {};
    for (const [name, header] of Object.entries(value.headers as Record<string, unknown>))
      if (!isSecretHeader(name) && !isMachineHeader(name, header)) headers[name] = header;
    value.headers = headers;
  }
  for (const field of ['url', 'path'] as const) if (typeof value[field] === 'string') value[field] = redactPathQuery(value[field] as string);
  if (Array.isArray(value.query))
    value.query = (value.query as Array<[string, string]>).map(([name, item]) => [name, isSecretQueryParameter(name) ? 'REDACTED' : item]);
  else if (value.query && typeof value.query === 'object')
    value.query = Object.fromEntries(Object.entries(value.query).map(([name, item]) => [name, isSecretQueryParameter(name) ? 'REDACTED' : item]));
  return redactStrings(value);
}

// Headers that say which machine, runtime or SDK build sent the request, not what the code under
// test asked for. A denylist, not an allowlist: a header the code sets itself (a beta flag, a
// gateway's routing header) is its decision and stays in the snapshot, and a new telemetry header
// from a new SDK fails the comparison loudly instead of slipping by.
const MACHINE_HEADERS: ReadonlySet<string> = new Set(['user-agent', 'x-goog-api-client', 'content-length', 'accept-encoding', ...HOP_BY_HOP_HEADERS]);

// A runtime and its version inside a header value: `runtime/node.js/v20.20.2` (Vercel AI's
// user-agent suffix), `gl-node/20.20.2` (Google's SDKs), `node/v20.20.2`, `python/3.12.1`.
const RUNTIME_VERSION = /(?:^|[\s/(;,])(?:node(?:\.?js)?|gl-node|deno|bun|python|cpython|pypy|go|java|ruby|dotnet|runtime)\/v?\d+\.\d+/i;

function isMachineHeader(name: string, value: unknown): boolean {
  const lower = name.toLowerCase();
  if (MACHINE_HEADERS.has(lower) || lower.startsWith('x-stainless-')) return true;
  const values = Array.isArray(value) ? value : [value];
  return values.some((item) => typeof item === 'string' && RUNTIME_VERSION.test(item));
}

// A stored snapshot read for comparison: its per-machine headers (written by an older modeltape)
// left out, as they are from a new one.
function withoutMachineHeaders(snapshot: unknown): unknown {
  if (typeof snapshot !== 'object' || snapshot === null || Array.isArray(snapshot)) return snapshot;
  const record = snapshot as Record<string, unknown>;
  if (typeof record.headers !== 'object' || record.headers === null || Array.isArray(record.headers)) return snapshot;
  const headers = Object.fromEntries(Object.entries(record.headers).filter(([name, value]) => !isMachineHeader(name, value)));
  return { ...record, headers };
}

// Key-shaped strings, in values and in property names alike: the key itself becomes a marker
// naming its kind and size, and the text around it stays.
function redactStrings(value: unknown): unknown {
  return maskValue(value);
}

function parseMaybe(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
