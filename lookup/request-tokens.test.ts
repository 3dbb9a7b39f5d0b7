import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  compileKeyRules,
  createHeader,
  exchangeKey,
  keyInputs,
  LazyLoadedExchange,
  loadTape,
  serializeLine,
  type CompiledKeyRules,
  type Exchange,
  type LoadedExchange,
  type RecordedRequest,
} from '../recordings/internal.js';
import { NearestIndex, comparedValues } from './nearest-index.js';
import { ReplayEngine } from './replay-engine.js';
import { RequestTokenReader } from './request-tokens.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'modeltape-request-tokens-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// What a writer meets in real payloads, and what JSON spells in more than one way.
const STRINGS = ['', 'x', 'Ship to Paris', 'é', 'naïve café', 'a"b', 'back\\slash', 'line\nbreak', '\t', '😀', '\ud800', '\u0000', 'x'.repeat(300)];
const NUMBERS = [0, -0, 1, -12, 0.5, 1e21, 1e-7, 123456789012345, 1234567890123456, 2 ** 53, -1.25e-300, 100];
const KEYS = ['a', 'b', 'model', '0', '10', '__proto__', 'é', '', 'odd key', 'a"b'];

function arbitrary(random: () => number, depth = 0): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const roll = Math.floor(random() * (depth > 3 ? 5 : 8));
  if (roll === 0) return pick([null, true, false]);
  if (roll === 1) return pick(NUMBERS);
  if (roll <= 3) return pick(STRINGS);
  if (roll === 4) return random() < 0.5 ? [] : {};
  if (roll <= 6) {
    const object: Record<string, unknown> = {};
    for (let count = Math.floor(random() * 5); count > 0; count--) object[pick(KEYS)] = arbitrary(random, depth + 1);
    return object;
  }
  return Array.from({ length: Math.floor(random() * 4) }, () => arbitrary(random, depth + 1));
}

function request(random: () => number, index: number): RecordedRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (random() < 0.3) headers['openai-beta'] = random() < 0.5 ? 'assistants=v2' : 'é';
  if (random() < 0.2) headers['anthropic-version'] = '2023-06-01';
  const query: Array<[string, string]> = [];
  for (let count = Math.floor(random() * 3); count > 0; count--) query.push([random() < 0.5 ? 'api-version' : 'é', STRINGS[index % STRINGS.length]!]);
  return {
    method: 'POST',
    path: '/v1/chat/completions',
    query,
    headers,
    body: { json: { model: 'gpt-4o', n: index, value: arbitrary(random) } },
    bodySha256: 'd'.repeat(64),
  };
}

/** Writes the requests as a tape and opens it lazily, as replay does. */
function lazyTape(requests: readonly RecordedRequest[], rules: CompiledKeyRules): LazyLoadedExchange[] {
  let text = serializeLine(createHeader(rules.rules));
  requests.forEach((recorded) => {
    const exchange: Exchange = {
      key: exchangeKey('openai', recorded, rules),
      ordinal: 0,
      upstream: 'openai',
      source: 'live',
      request: recorded,
      // Long enough for a line to be read lazily.
      response: { status: 200, headers: {}, body: { json: { note: 'x'.repeat(200) } } },
    };
    text += serializeLine(exchange);
  });
  const file = join(dir, 'tape.jsonl');
  writeFileSync(file, text);
  const { exchanges } = loadTape(file, { lazy: true });
  return exchanges.map((loaded) => {
    expect(loaded).toBeInstanceOf(LazyLoadedExchange);
    return loaded as LazyLoadedExchange;
  });
}

describe('RequestTokenReader', () => {
  test("reads from a line's bytes the tokens the index computes from the parsed request: every estimate agrees", () => {
    const rules = compileKeyRules();
    const random = seeded(14);
    const requests = Array.from({ length: 400 }, (_, index) => request(random, index));
    const loaded = lazyTape(requests, rules);
    const parsed = new NearestIndex();
    const read = new NearestIndex();
    const reader = new RequestTokenReader(rules);
    for (const [at, line] of loaded.entries()) {
      parsed.add(comparedValues(keyInputs('openai', requests[at]!, rules)));
      const bytes = line.requestBytes()!;
      expect(read.addRead(reader.at(bytes.buffer, bytes.start, bytes.end)), `line ${line.line}`).toBe(at);
    }
    let compared = 0;
    for (let query = 0; query < 60; query++) {
      const sent = comparedValues(keyInputs('openai', query % 2 === 0 ? requests[query]! : request(random, query), rules));
      // Every recording's estimate, not only the closest ones.
      expect(read.closest(sent, requests.length), `query ${query}`).toEqual(parsed.closest(sent, requests.length));
      compared += requests.length;
    }
    expect(compared).toBe(60 * 400);
  });

  test('gives up on what it does not read, and the index keeps nothing of it', () => {
    const rules = compileKeyRules();
    const reader = new RequestTokenReader(rules);
    const index = new NearestIndex();
    const attempt = (json: string, readWith = reader): number => {
      const buffer = Buffer.from(json);
      return index.addRead(readWith.at(buffer, 0, buffer.length));
    };
    const request = (body: string, path = '/v1/chat/completions') => `{"body":${body},"headers":{},"method":"POST","path":"${path}","query":[]}`;
    expect(attempt(request('{"json":{"a":1}}'))).toBe(0);
    // A repeated member keeps its last value when parsed; a text body; a Gemini turn (its call ids are renumbered); whitespace.
    expect(attempt(request('{"json":{"a":1,"a":2}}'))).toBe(-1);
    expect(attempt(request('{"text":"hello"}'))).toBe(-1);
    expect(attempt(request('{"json":{"contents":[]}}', '/v1beta/models/gemini-2.0-flash:generateContent'))).toBe(-1);
    expect(attempt(request('{"json": {"a":1}}'))).toBe(-1);
    expect(attempt(`{"body":{"json":{}},"headers":{"openai-beta":"a","openai-beta":"b"},"method":"POST","path":"/v1/x","query":[]}`)).toBe(-1);
    // A Realtime client event keys without its event id.
    expect(attempt('{"body":{"json":{"event_id":"e1","type":"response.create"}},"headers":{},"method":"WS","path":"/v1/realtime","query":[]}')).toBe(-1);
    // A JSON-RPC message (an MCP call) keys without its id.
    expect(attempt(request('{"json":{"id":3,"jsonrpc":"2.0","method":"tools/list"}}', '/'))).toBe(-1);
    // Normalizers change what is keyed: such requests are read parsed.
    expect(attempt(request('{"json":{"a":1}}'), new RequestTokenReader(compileKeyRules({ headers: [], normalizers: [{ path: '.a' }] })))).toBe(-1);
    expect(index.size).toBe(1);
    expect(index.tailPostings).toBe(index.postings);
    const only = new NearestIndex();
    only.add(comparedValues(keyInputs('openai', JSON.parse(request('{"json":{"a":1}}')) as RecordedRequest, rules)));
    expect(index.postings).toBe(only.postings);
  });
});

describe('ReplayEngine on a lazily opened tape', () => {
  test("indexes a large route from its lines' bytes, explains misses as an engine of parsed exchanges does, and names no invalid line", () => {
    const rules = compileKeyRules();
    const random = seeded(41);
    const requests = Array.from({ length: 150 }, (_, index) => request(random, index));
    const invalid = 37;
    let text = serializeLine(createHeader(rules.rules));
    const valid: LoadedExchange[] = [];
    requests.forEach((recorded, index) => {
      const exchange: Exchange = {
        key: exchangeKey('openai', recorded, rules),
        ordinal: 0,
        upstream: 'openai',
        source: 'live',
        request: recorded,
        response: { status: 200, headers: {}, body: { json: { note: 'x'.repeat(200) } } },
      };
      const line = serializeLine(exchange);
      // A hand edit the line's two ends do not show: its response status is no number.
      text += index === invalid ? line.replace('"status":200', '"status":"200"') : line;
      if (index !== invalid) valid.push({ exchange, line: index + 2 });
    });
    const file = join(dir, 'large.jsonl');
    writeFileSync(file, text);
    const { engine } = ReplayEngine.fromTape(file, {});
    const parsed = new ReplayEngine({ file, keyRules: rules }, valid);
    expect(engine.indexedCount('openai', 'POST', '/v1/chat/completions')).toBe(requests.length);
    let explained = 0;
    for (let query = 0; query < 40; query++) {
      const base = query % 4 === 0 ? requests[invalid]! : requests[Math.floor(random() * requests.length)]!;
      const json = (base.body as { json: Record<string, unknown> }).json;
      const sent: RecordedRequest = { ...base, body: { json: { ...json, value: query % 2 === 0 ? json.value : arbitrary(random) } } };
      const nearest = engine.nearest('openai', sent)!;
      const expected = parsed.nearest('openai', sent)!;
      expect(nearest.entry.line, `query ${query}`).toBe(expected.entry.line);
      expect(nearest.entry.line).not.toBe(invalid + 2);
      expect(nearest.differences).toEqual(expected.differences);
      expect(nearest.total).toBe(expected.total);
      explained++;
    }
    expect(explained).toBe(40);
    // The invalid line came up (its request was asked for): it is counted no more.
    expect(engine.routes()).toEqual([{ route: 'POST /v1/chat/completions (openai)', count: requests.length - 1 }]);
  });
});
