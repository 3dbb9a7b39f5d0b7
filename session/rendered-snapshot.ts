import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { canonicalJson, findSecrets, isSecretHeader, isSecretQueryParameter, redactPathQuery, sortKeys, type RecordedRequest } from '../recordings/index.js';
import { isCi } from '../proxy/index.js';
import { diffJson, formatDifferences } from '../replay/index.js';
import { ReplayAssertionError } from './assertions.js';
import { currentTest, safeFileName } from './test-context.js';

export interface RenderedSnapshotOptions {
  /** The folder that holds `__snapshots__/`. @default the running test file's folder, else the working directory */
  dir?: string;
  /** The environment to read `MODELTAPE_UPDATE` and `CI` from. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Checks the request the code rendered against a golden file,
 * `__snapshots__/<name>.request.json`. The file is written (or rewritten) only when
 * `MODELTAPE_UPDATE=1` is set and `CI` is not; under CI it only compares, and a missing snapshot
 * is a failure. Credentials never reach the file: secret headers and query parameters are
 * dropped, key-shaped strings replaced by `[redacted]`.
 *
 * `request` is a body (any JSON value), a request `{ method, url | path, headers, body }`, or a
 * recorded request from a tape.
 */
export function assertRenderedSnapshot(name: string, request: unknown, options: RenderedSnapshotOptions = {}): void {
  const env = options.env ?? process.env;
  const update = env.MODELTAPE_UPDATE === '1' && !isCi(env);
  const test = currentTest();
  const dir = options.dir ?? (test ? dirname(test.file) : process.cwd());
  const file = join(dir, '__snapshots__', `${safeFileName(name)}.request.json`);
  const actual = sortKeys(redact(asSnapshot(request)));
  const text = `${JSON.stringify(actual, null, 2)}\n`;
  if (!existsSync(file)) {
    if (update) return write(file, text);
    throw new ReplayAssertionError(
      `No rendered-request snapshot ${file}.${isCi(env) ? ' Under CI snapshots are only compared, never written.' : ''} Write it by running the test with MODELTAPE_UPDATE=1 (not in CI), review it, and commit it.`,
    );
  }
  let existing: unknown;
  try {
    existing = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ReplayAssertionError(`The rendered-request snapshot ${file} is not valid JSON (${(error as Error).message}). Fix it, or delete it and write it again with MODELTAPE_UPDATE=1.`);
  }
  // Compared as values, so line endings or spacing from a checkout never count as a change.
  if (canonicalJson(existing) === canonicalJson(actual)) return;
  if (update) return write(file, text);
  const differences = diffJson(existing, actual);
  throw new ReplayAssertionError(
    `The rendered request differs from its snapshot ${file}:\n${formatDifferences(differences).map((line) => `  ${line}`).join('\n')}\n` +
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
    const body = recorded.body === undefined ? undefined : 'json' in recorded.body ? recorded.body.json : 'text' in recorded.body ? recorded.body.text : recorded.body;
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
  if (body instanceof Uint8Array) return { base64: Buffer.from(body).toString('base64') };
  if (body instanceof ArrayBuffer) return { base64: Buffer.from(body).toString('base64') };
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
    for (const [name, header] of Object.entries(value.headers as Record<string, unknown>)) if (!isSecretHeader(name)) headers[name] = header;
    value.headers = headers;
  }
  for (const field of ['url', 'path'] as const) if (typeof value[field] === 'string') value[field] = redactPathQuery(value[field] as string);
  if (Array.isArray(value.query)) value.query = (value.query as Array<[string, string]>).map(([name, item]) => [name, isSecretQueryParameter(name) ? 'REDACTED' : item]);
  else if (value.query && typeof value.query === 'object') value.query = Object.fromEntries(Object.entries(value.query).map(([name, item]) => [name, isSecretQueryParameter(name) ? 'REDACTED' : item]));
  return redactStrings(value);
}

// Key-shaped strings, in values and in property names alike, become "[redacted]".
function redactStrings(value: unknown): unknown {
  if (typeof value === 'string') return findSecrets(value).length > 0 ? '[redacted]' : value;
  if (Array.isArray(value)) return value.map(redactStrings);
  if (typeof value === 'object' && value !== null) {
    const result: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) result[findSecrets(name).length > 0 ? '[redacted]' : name] = redactStrings(item);
    return result;
  }
  return value;
}

function parseMaybe(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
