import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  TapeFormatError,
  captureRequest,
  compileKeyRules,
  createHeader,
  exchangeKey,
  serializeLine,
  serializeTape,
  type CompiledKeyRules,
  type Exchange,
  type LoadedExchange,
  type RecordedRequest,
} from '../recordings/internal.js';
import { ModeltapeError } from '../core/internal.js';
import { KeyRulesMismatchError, ReplayEngine, REPEAT_POLICIES } from './replay-engine.js';

const FILE = 'tapes/chat.jsonl';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'modeltape-replay-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface RequestShape {
  path?: string;
  query?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

function request(shape: RequestShape = {}, rules: CompiledKeyRules = compileKeyRules()): RecordedRequest {
  return captureRequest(
    {
      method: 'POST',
      path: shape.path ?? '/v1/chat/completions',
      query: shape.query ?? '',
      headers: { 'content-type': 'application/json', ...shape.headers },
      body: Buffer.from(JSON.stringify(shape.body ?? { model: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] })),
    },
    rules,
  );
}

function exchange(recorded: RecordedRequest, answer: string, ordinal = 0, rules: CompiledKeyRules = compileKeyRules(), upstream = 'openai'): Exchange {
  return {
    key: exchangeKey(upstream, recorded, rules),
    ordinal,
    upstream,
    source: 'live',
    request: recorded,
    response: { status: 200, headers: {}, body: { json: { answer } } },
  };
}

function answerOf(result: ReturnType<ReplayEngine['lookup']>): string | undefined {
  return result.kind === 'hit' ? (result.entry.exchange.response.body as { json: { answer: string } }).json.answer : undefined;
}

function messages(...contents: string[]): unknown {
  return { model: 'gpt-4o', messages: contents.map((content, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content })) };
}

describe('ReplayEngine.lookup', () => {
  test('answers identical requests with their recordings in ordinal order, whatever the line order', () => {
    const hello = request();
    const loaded: LoadedExchange[] = [
      { exchange: exchange(hello, 'second', 1), line: 2 },
      { exchange: exchange(request({ body: messages('other') }), 'other'), line: 3 },
      { exchange: exchange(hello, 'first', 0), line: 4 },
    ];
    const engine = new ReplayEngine({ file: FILE, keyRules: compileKeyRules() }, loaded);
    const key = exchangeKey('openai', hello, compileKeyRules());
    const first = engine.lookup(key);
    const second = engine.lookup(key);
    expect([answerOf(first), answerOf(second)]).toEqual(['first', 'second']);
    expect(first).toMatchObject({ kind: 'hit', call: 0 });
    expect(second).toMatchObject({ kind: 'hit', call: 1 });
    expect(engine.size).toBe(3);
  });

  test('is exhausted past the last recording, naming the call', () => {
    const hello = request();
    const engine = new ReplayEngine({ file: FILE, keyRules: compileKeyRules() }, [{ exchange: exchange(hello, 'only'), line: 2 }]);
    const key = exchangeKey('openai', hello, compileKeyRules());
    expect(answerOf(engine.lookup(key))).toBe('only');
    const third = [engine.lookup(key), engine.lookup(key)];
    expect(third.map((result) => result.kind)).toEqual(['exhausted', 'exhausted']);
    expect(third.map((result) => (result.kind === 'exhausted' ? result.call : undefined))).toEqual([1, 2]);
    expect(third[0]!.kind === 'exhausted' && third[0]!.entries.map(({ line }) => line)).toEqual([2]);
  });

  test('repeats the last recording forever only with repeat "last"', () => {
    const hello = request();
    const loaded = [
      { exchange: exchange(hello, 'first', 0), line: 2 },
      { exchange: exchange(hello, 'last', 1), line: 3 },
    ];
    const engine = new ReplayEngine({ file: FILE, keyRules: compileKeyRules(), repeat: 'last' }, loaded);
    const key = exchangeKey('openai', hello, compileKeyRules());
    expect([1, 2, 3, 4].map(() => answerOf(engine.lookup(key)))).toEqual(['first', 'last', 'last', 'last']);
    expect(engine.entries().map(({ uses }) => uses)).toEqual([1, 3]);
    expect(REPEAT_POLICIES).toEqual(['none', 'last']);
  });

  test('misses a key that was never recorded', () => {
    const engine = new ReplayEngine({ file: FILE, keyRules: compileKeyRules() }, [{ exchange: exchange(request(), 'x'), line: 2 }]);
    expect(engine.lookup('f'.repeat(64))).toEqual({ kind: 'miss' });
  });
});

describe('ReplayEngine bookkeeping', () => {
  test('lists the entries that never answered, in tape order', () => {
    const loaded = ['a', 'b', 'c'].map((content, index) => ({ exchange: exchange(request({ body: messages(content) }), content), line: 4 - index }));
    const engine = new ReplayEngine({ file: FILE, keyRules: compileKeyRules() }, loaded);
    expect(engine.unused().map(({ line }) => line)).toEqual([2, 3, 4]);
    engine.lookup(loaded[1]!.exchange.key);
    expect(engine.unused().map(({ line }) => line)).toEqual([2, 4]);
    expect(engine.entries().map(({ line, uses }) => [line, uses])).toEqual([
      [2, 0],
      [3, 1],
      [4, 0],
    ]);
  });

  test('answers later identical calls after one it recorded itself, and counts that one as used', () => {
    const hello = request();
    const engine = new ReplayEngine({ file: FILE, keyRules: compileKeyRules() }, [{ exchange: exchange(hello, 'from tape'), line: 2 }]);
    const key = exchangeKey('openai', hello, compileKeyRules());
    expect(answerOf(engine.lookup(key))).toBe('from tape');
    expect(engine.lookup(key).kind).toBe('exhausted');
    expect(engine.nextOrdinal(key)).toBe(1);
    const added = engine.addRecorded(exchange(hello, 'recorded now', 1));
    expect(added).toMatchObject({ line: undefined, uses: 1 });
    expect(engine.nextOrdinal(key)).toBe(2);
    expect(engine.lookup(key).kind).toBe('exhausted');
    expect(engine.unused()).toEqual([]);
    expect(engine.entries().at(-1)).toBe(added);
    expect(engine.size).toBe(2);
  });

  test('gives ordinal 0 for a key it has never seen', () => {
    expect(new ReplayEngine({ file: FILE, keyRules: compileKeyRules() }).nextOrdinal('0'.repeat(64))).toBe(0);
  });

  test('lists the routes it holds with their counts', () => {
    const loaded = [
      { exchange: exchange(request({ body: messages('a') }), 'a'), line: 2 },
      { exchange: exchange(request({ body: messages('b') }), 'b'), line: 3 },
      { exchange: exchange(request({ path: '/v1/messages' }), 'c', 0, compileKeyRules(), 'anthropic'), line: 4 },
    ];
    expect(new ReplayEngine({ file: FILE, keyRules: compileKeyRules() }, loaded).routes()).toEqual([
      { route: 'POST /v1/chat/completions (openai)', count: 2 },
      { route: 'POST /v1/messages (anthropic)', count: 1 },
    ]);
  });
});

describe('ReplayEngine.nearest', () => {
  const conversation = ['Where is my parcel?', 'In Paris.', 'Ship it to Paris'];

  test('picks the recording on the same route with the fewest differing leaves', () => {
    const loaded = [
      { exchange: exchange(request({ body: { ...(messages('Completely', 'different', 'talk') as object), temperature: 1 } }), 'far'), line: 2 },
      { exchange: exchange(request({ body: messages(...conversation) }), 'near'), line: 3 },
      { exchange: exchange(request({ body: messages('Where is my parcel?') }), 'shorter'), line: 4 },
    ];
    const engine = new ReplayEngine({ file: FILE, keyRules: compileKeyRules() }, loaded);
    const sent = request({ body: messages('Where is my parcel?', 'In Paris.', 'Ship it to Lyon') });
    const nearest = engine.nearest('openai', sent)!;
    expect(nearest.entry.line).toBe(3);
    expect(nearest.total).toBe(1);
    expect(nearest.differences).toEqual([{ path: '.messages[2].content', change: 'changed', recorded: 'Ship it to Paris', sent: 'Ship it to Lyon' }]);
  });

  test('counts every differing leaf of the nearest recording', () => {
    const engine = new ReplayEngine({ file: FILE, keyRules: compileKeyRules() }, [
      { exchange: exchange(request({ body: messages('a', 'b', 'c') }), 'x'), line: 2 },
    ]);
    const nearest = engine.nearest('openai', request({ body: { ...(messages('x', 'y', 'z') as object), stream: true } }))!;
    expect(nearest.total).toBe(4);
    expect(nearest.differences.map(({ path }) => path)).toEqual(['.messages[0].content', '.messages[1].content', '.messages[2].content', '.stream']);
  });

  test('names differing key headers and query parameters', () => {
    const recorded = request({ path: '/v1/models', query: 'limit=2&order=asc', headers: { 'openai-beta': 'assistants=v1' } });
    const engine = new ReplayEngine({ file: FILE, keyRules: compileKeyRules() }, [{ exchange: exchange(recorded, 'x'), line: 2 }]);
    const nearest = engine.nearest('openai', request({ path: '/v1/models', query: 'limit=3&order=asc', headers: { 'openai-beta': 'assistants=v2' } }))!;
    expect(nearest.differences.map(({ path, recorded: before, sent }) => [path, before, sent])).toEqual([
      ['header openai-beta', 'assistants=v1', 'assistants=v2'],
      ['query limit', '2', '3'],
    ]);
  });

  test('ignores recordings on other routes, however close their bodies', () => {
    const loaded = [
      { exchange: exchange(request({ path: '/v1/responses', body: messages('same') }), 'other path'), line: 2 },
      { exchange: exchange(request({ body: messages('same') }), 'other upstream', 0, compileKeyRules(), 'azure'), line: 3 },
    ];
    const engine = new ReplayEngine({ file: FILE, keyRules: compileKeyRules() }, loaded);
    expect(engine.nearest('openai', request({ body: messages('same') }))).toBeUndefined();
  });

  test('compares bodies after the normalizers, like the key does', () => {
    const rules = compileKeyRules({ headers: [], normalizers: [{ path: '.metadata.request_id' }] });
    const recorded = request({ body: { metadata: { request_id: 'r-1' }, messages: [{ role: 'user', content: 'a' }] } }, rules);
    const engine = new ReplayEngine({ file: FILE, keyRules: rules }, [{ exchange: exchange(recorded, 'x', 0, rules), line: 2 }]);
    const nearest = engine.nearest('openai', request({ body: { metadata: { request_id: 'r-2' }, messages: [{ role: 'user', content: 'b' }] } }, rules))!;
    expect(nearest.differences.map(({ path }) => path)).toEqual(['.messages[0].content']);
  });
});

describe('ReplayEngine.fromTape', () => {
  function writeTape(name: string, rules: CompiledKeyRules, exchanges: Exchange[], extra = ''): string {
    const file = join(dir, name);
    writeFileSync(file, serializeTape(createHeader(rules.rules), exchanges) + extra);
    return file;
  }

  test('loads a tape, keeping line numbers and reporting torn lines as warnings', () => {
    const rules = compileKeyRules();
    const hello = request();
    const torn = serializeLine(exchange(request({ body: messages('torn') }), 'torn')).slice(0, 80);
    const file = writeTape('a.jsonl', rules, [exchange(hello, 'first'), exchange(hello, 'second', 1)], torn);
    const { engine, warnings } = ReplayEngine.fromTape(file, { keyRules: rules });
    expect(engine.file).toBe(file);
    expect(engine.size).toBe(2);
    expect(engine.entries().map(({ line }) => line)).toEqual([2, 3]);
    expect(warnings.map(({ line }) => line)).toEqual([4]);
    expect(answerOf(engine.lookup(exchangeKey('openai', hello, rules)))).toBe('first');
  });

  test('a tape that keeps none of its lines in memory answers hits, finds a miss its nearest recording through the index, and lets go of its file at close', () => {
    const rules = compileKeyRules();
    // More recordings of one route than the index's minimum: a miss reads only its shortlist.
    const asked = Array.from({ length: 100 }, (_, index) =>
      request({ body: messages(`Where is parcel ${index}?`, 'On its way.', `Ship parcel ${index} to Paris`) }),
    );
    const file = writeTape(
      'large.jsonl',
      rules,
      asked.map((recorded, index) => exchange(recorded, `answer ${index}`)),
    );
    const { engine } = ReplayEngine.fromTape(file, { keyRules: rules, spillAboveBytes: 0 });
    expect(engine.indexedCount('openai', 'POST', '/v1/chat/completions')).toBe(100);
    expect(answerOf(engine.lookup(exchangeKey('openai', asked[71]!, rules)))).toBe('answer 71');
    const nearest = engine.nearest('openai', request({ body: messages('Where is parcel 42?', 'On its way.', 'Ship parcel 42 to Lyon') }))!;
    expect(nearest.entry.line).toBe(44);
    expect(nearest.differences).toEqual([
      { path: '.messages[2].content', change: 'changed', recorded: 'Ship parcel 42 to Paris', sent: 'Ship parcel 42 to Lyon' },
    ]);
    engine.close();
    // Closed, the file is opened again for a line not read yet; gone, it is named.
    expect(answerOf(engine.lookup(exchangeKey('openai', asked[3]!, rules)))).toBe('answer 3');
    rmSync(file);
    expect(() => answerOf(engine.lookup(exchangeKey('openai', asked[1]!, rules)))).toThrow(/large\.jsonl does not exist/);
  });

  test('refuses a tape keyed with other rules only where they change a key, naming each exchange and the rule that changed it', () => {
    const tapeRules = compileKeyRules();
    const withId = request(
      { body: { model: 'gpt-4o', metadata: { request_id: 'r-1' }, messages: [{ role: 'user', content: 'a' }] }, headers: { 'openai-beta': 'assistants=v2' } },
      tapeRules,
    );
    const file = writeTape('a.jsonl', tapeRules, [exchange(request(), 'x'), exchange(withId, 'y')]);
    const runRules = compileKeyRules({ headers: ['anthropic-version'], normalizers: [{ path: '.metadata.request_id' }] });
    let caught: unknown;
    try {
      ReplayEngine.fromTape(file, { keyRules: runRules, configFile: 'modeltape.config.json' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(KeyRulesMismatchError);
    expect((caught as ModeltapeError).code).toBe('key_rules_mismatch');
    expect((caught as KeyRulesMismatchError).changes).toMatchObject([
      {
        line: 3,
        endpoint: 'POST /v1/chat/completions (openai)',
        causes: ['header openai-beta (no longer keyed)', 'normalizer {"path":".metadata.request_id"} (added) at .metadata.request_id'],
      },
    ]);
    expect((caught as Error).message).toBe(
      `Tape ${file} was keyed with other rules than this run uses, and under this run's rules 1 of 2 keys change:\n` +
        `  ${file}:3 POST /v1/chat/completions (openai): header openai-beta (no longer keyed); normalizer {"path":".metadata.request_id"} (added) at .metadata.request_id\n` +
        '  tape (line 1): {"headers":["anthropic-beta","anthropic-version","openai-beta"],"normalizers":[]}\n' +
        '  this run:      {"headers":["anthropic-version"],"normalizers":[{"path":".metadata.request_id"}]}\n' +
        `Run modeltape rekey ${file} --config modeltape.config.json to re-key it under this run's rules (every line keeps its key's inputs; add --dry-run to see what changes first), or give this run the tape's rules (line 1) as its normalizers and key headers.`,
    );
  });

  test('accepts a tape keyed with other rules under which no key changes, says so, and writes nothing', () => {
    const tapeRules = compileKeyRules();
    const file = writeTape('a.jsonl', tapeRules, [exchange(request(), 'x'), exchange(request({ body: messages('other') }), 'y')]);
    const before = readFileSync(file, 'utf8');
    const runRules = compileKeyRules({ headers: ['anthropic-version'], normalizers: [{ path: '.metadata.request_id' }] });
    const { engine, warnings } = ReplayEngine.fromTape(file, { keyRules: runRules });
    expect(engine.size).toBe(2);
    expect(answerOf(engine.lookup(exchangeKey('openai', request(), runRules)))).toBe('x');
    expect(warnings).toEqual([
      {
        file,
        line: 1,
        message: expect.stringMatching(
          /^the tape was keyed with other rules than this run uses, and none of its 2 keys changes under this run's rules, so it is used as it is\. modeltape rekey .* writes this run's rules into its header/,
        ),
      },
    ]);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  test('finds the very keys that keying every exchange again finds, whatever the rules added', () => {
    const bodies = [
      messages('plain'),
      { model: 'gpt-4o', metadata: { request_id: 'r-1', tags: ['a', 'b'] }, messages: [{ role: 'user', content: 'at 2026-01-01T10:00:00Z' }] },
      { model: 'gpt-4o', items: [{ id: 'i-1' }, { id: 'i-2' }], messages: [{ role: 'user', content: '<normalized> already' }] },
      { model: 'gpt-4o', metadata: null, messages: [] },
    ];
    const ruleSets = [
      { headers: [], normalizers: [] },
      { headers: [], normalizers: [{ path: '.metadata.request_id' }] },
      { headers: [], normalizers: [{ path: '.metadata.request_id' }, { pattern: '<normalized>' }] },
      { headers: [], normalizers: [{ path: '.items[*].id' }, { path: '.messages[0]' }, { path: '.metadata.tags[1]' }] },
      { headers: [], normalizers: [{ pattern: '\\d{4}-\\d{2}-\\d{2}T[0-9:]+Z' }, { path: '.nowhere[*].deeper' }] },
      { headers: ['openai-beta'], normalizers: [{ path: '.metadata.request_id' }, { path: '.metadata' }] },
    ].map((rules) => compileKeyRules(rules));
    let compared = 0;
    for (const previous of ruleSets) {
      const loaded = bodies.map((body, index) => ({
        exchange: exchange(request({ body, headers: { 'openai-beta': 'assistants=v2' } }, previous), String(index), 0, previous),
        line: index + 2,
      }));
      for (const rules of ruleSets) {
        const everyKey = loaded.filter(({ exchange: recorded }) => exchangeKey('openai', recorded.request, rules) !== recorded.key).map(({ line }) => line);
        expect(
          ReplayEngine.keyChanges(loaded, rules, previous).map(({ line }) => line),
          `${JSON.stringify(previous.rules)} → ${JSON.stringify(rules.rules)}`,
        ).toEqual(everyKey);
        compared++;
      }
    }
    expect(compared).toBe(36);
  });

  test('names the cause of a changed key: a removed normalizer, and a reordering', () => {
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'at 2026-01-01 run-7' }] };
    const previous = compileKeyRules({ headers: [], normalizers: [{ pattern: '\\d{4}-\\d{2}-\\d{2}' }, { pattern: '<normalized> run-\\d' }] });
    const recorded = request({ body }, previous);
    const loaded = [{ exchange: exchange(recorded, 'x', 0, previous), line: 2 }];
    const removed = ReplayEngine.keyChanges(loaded, compileKeyRules({ headers: [], normalizers: [{ pattern: '<normalized> run-\\d' }] }), previous);
    expect(removed.map(({ causes }) => causes)).toEqual([['normalizer {"pattern":"\\\\d{4}-\\\\d{2}-\\\\d{2}"} (removed) at .messages[0].content']]);
    const reordered = ReplayEngine.keyChanges(loaded, compileKeyRules({ headers: [], normalizers: [...previous.rules.normalizers].reverse() }), previous);
    expect(reordered.map(({ causes }) => causes)).toEqual([['the normalizers apply in another order']]);
    expect(ReplayEngine.keyChanges(loaded, previous, previous)).toEqual([]);
  });

  test('accepts a tape keyed with the very rules it is given, whatever order their fields were written in', () => {
    // The tape stores its header in canonical form (fields sorted): {flags, pattern}, {headers, normalizers}.
    const written = compileKeyRules({ headers: ['openai-beta'], normalizers: [{ pattern: 'run-\\d+', flags: 'i' }] });
    const file = writeTape('a.jsonl', written, [exchange(request({}, written), 'x', 0, written)]);
    const reordered = compileKeyRules({ normalizers: [{ flags: 'i', pattern: 'run-\\d+' }], headers: ['openai-beta'] });
    const accepted = [written, reordered].map((keyRules) => {
      try {
        return ReplayEngine.fromTape(file, { keyRules }).engine.size;
      } catch (error) {
        return (error as ModeltapeError).code;
      }
    });
    expect(accepted).toEqual([1, 1]);
  });

  test('refuses an invalid tape with the format error', () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, `${serializeLine(createHeader(compileKeyRules().rules))}{"ordinl":0}\n`);
    expect(() => ReplayEngine.fromTape(file, { keyRules: compileKeyRules() })).toThrow(TapeFormatError);
  });
});
