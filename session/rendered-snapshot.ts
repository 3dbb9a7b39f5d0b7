import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findSecrets, isSecretHeader, redactPathQuery, sortKeys, type RecordedRequest } from '../recordings/index.js';
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
  const dir = options.dir ?? (currentTest() ? dirname(currentTest()!.file) : process.cwd());
  const file = join(dir, '__snapshots__', `${safeFileName(name)}.request.json`);
  const actual = redact(asSnapshot(request));
  const text = `${JSON.stringify(sortKeys(actual), null, 2)}\n`;
  if (!existsSync(file)) {
    if (update) return write(file, text);
    throw new ReplayAssertionError(
      `No rendered-request snapshot ${file}.${isCi(env) ? ' Under CI snapshots are only compared, never written.' : ''} Write it by running the test with MODELTAPE_UPDATE=1 (not in CI), review it, and commit it.`,
    );
  }
  const existing = readFileSync(file, 'utf8');
  if (existing === text) return;
  if (update) return write(file, text);
  const differences = diffJson(JSON.parse(existing) as unknown, JSON.parse(text) as unknown);
  throw new ReplayAssertionError(
    `The rendered request differs from its snapshot ${file}:\n${formatDifferences(differences).map((line) => `  ${line}`).join('\n')}\n` +
      'If the change is intended, run the test with MODELTAPE_UPDATE=1 (not in CI) and commit the new snapshot.',
  );
}

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function asSnapshot(request: unknown): unknown {
  if (typeof request !== 'object' || request === null) return { body: request };
  const record = request as Record<string, unknown>;
  if ('bodySha256' in record) {
    const recorded = record as unknown as RecordedRequest;
    const body = recorded.body === undefined ? undefined : 'json' in recorded.body ? recorded.body.json : 'text' in recorded.body ? recorded.body.text : recorded.body;
    return { method: recorded.method, path: recorded.path, query: recorded.query, headers: recorded.headers, body };
  }
  if ('body' in record && ('method' in record || 'url' in record || 'path' in record)) {
    const body = typeof record.body === 'string' ? parseMaybe(record.body) : record.body;
    return { ...record, body };
  }
  return { body: request };
}

function redact(snapshot: unknown): unknown {
  const value = structuredClone(snapshot) as Record<string, unknown>;
  if (value.headers && typeof value.headers === 'object') {
    const headers: Record<string, unknown> = {};
    for (const [name, header] of Object.entries(value.headers as Record<string, unknown>)) if (!isSecretHeader(name)) headers[name.toLowerCase()] = header;
    value.headers = headers;
  }
  for (const field of ['url', 'path'] as const) if (typeof value[field] === 'string') value[field] = redactPathQuery(value[field] as string);
  // Replace key-shaped strings wherever they are; findSecrets tells where.
  return JSON.parse(JSON.stringify(value), (_name, item: unknown) => (typeof item === 'string' && findSecrets(item).length > 0 ? '[redacted]' : item)) as unknown;
}

function parseMaybe(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
