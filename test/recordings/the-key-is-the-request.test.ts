import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { captureRequest, compileKeyRules, exchangeKey } from 'modeltape/recordings';
import { startProxy } from 'modeltape/proxy';
import { closeAfterEach } from '../support/close-after-each.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

const rules = compileKeyRules();
const keyOf = (bytes: string): string =>
  exchangeKey(
    'openai',
    captureRequest(
      { method: 'POST', path: '/v1/chat/completions', query: '', headers: { 'content-type': 'application/json' }, body: Buffer.from(bytes) },
      rules,
    ),
    rules,
  );

// JSON text with each object's members in reverse order: the same value, other bytes.
function reversed(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(reversed).join(',')}]`;
  return `{${Object.keys(value)
    .reverse()
    .map((name) => `${JSON.stringify(name)}:${reversed((value as Record<string, unknown>)[name])}`)
    .join(',')}}`;
}

// Every leaf of a JSON value, with the way to change it to another value.
function leaves(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== 'object') return [path];
  const entries: Array<[string | number, unknown]> = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : Object.entries(value as Record<string, unknown>);
  // An empty array or object is a leaf too.
  if (entries.length === 0) return [path];
  return entries.flatMap(([name, child]) => leaves(child, [...path, name]));
}

function changedAt(value: unknown, path: Array<string | number>): unknown {
  if (path.length === 0) {
    if (typeof value === 'number') return value === 0 ? 1 : -value;
    if (typeof value === 'string') return `${value}x`;
    if (typeof value === 'boolean') return !value;
    return value === null ? 0 : null;
  }
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((item, index) => (index === head ? changedAt(item, rest) : item));
  const copy: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(value as Record<string, unknown>)) {
    Object.defineProperty(copy, name, { value: name === head ? changedAt(child, rest) : child, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

// Members named like the properties of every JavaScript object, "__proto__" above all.
const SPECIAL_NAMES = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf'];
const body = fc.dictionary(fc.oneof(fc.constantFrom(...SPECIAL_NAMES), fc.string({ maxLength: 6 })), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });

describe('the key is the request', () => {
  const dir = tempDir();
  const started = closeAfterEach();

  test('two bodies that differ in any leaf never share a key; the same body in any member order always does', () => {
    let differing = 0;
    fc.assert(
      fc.property(body, fc.nat(), (value, pick) => {
        const text = JSON.stringify(value);
        const parsed = JSON.parse(text) as unknown;
        expect(keyOf(reversed(parsed))).toBe(keyOf(text));
        const all = leaves(parsed);
        const path = all[pick % all.length]!;
        const other = JSON.stringify(changedAt(parsed, path));
        if (other === text) return;
        differing++;
        expect(keyOf(other), `changed at ${JSON.stringify(path)}: ${text} → ${other}`).not.toBe(keyOf(text));
      }),
      { numRuns: 400, seed: 20261201 },
    );
    // The property must have compared real changes, not only bodies it could not change.
    expect(differing).toBeGreaterThan(300);
  });

  test('a "__proto__" member is part of the key through the real proxy: another value misses, naming its path', async () => {
    const tape = `${dir}/proto.jsonl`;
    const send = (url: string, value: number) =>
      fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"model":"gpt-4o","messages":[],"__proto__":{"role":${value}},"constructor":{"prototype":1}}`,
      });
    await recordTape(tape, async ({ openai }) => {
      expect((await send(openai, 1)).status).toBe(200);
    });
    expect(readFileSync(tape, 'utf8')).toContain('"__proto__":{"role":1}');
    const replay = started(await startProxy({ tape, log: () => undefined }));
    expect((await send(replay.baseUrls.openai, 1)).status).toBe(200);
    const miss = await send(replay.baseUrls.openai, 2);
    expect(miss.status).toBe(400);
    expect(((await miss.json()) as { error: { message: string } }).error.message).toContain('at .__proto__.role: recorded 1 sent 2');
  });
});
