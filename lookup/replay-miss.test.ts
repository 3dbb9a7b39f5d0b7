import { describe, expect, test } from 'vitest';
import { captureRequest, compileKeyRules, exchangeKey, type Exchange, type LoadedExchange, type RecordedRequest } from '../recordings/internal.js';
import { ModeltapeError } from '../core/internal.js';
import { ReplayEngine } from './replay-engine.js';
import { ReplayMissError, explainMiss } from './replay-miss.js';

const FILE = 'tapes/checkout.jsonl';
const rules = compileKeyRules();

function request(body: unknown, path = '/v1/chat/completions'): RecordedRequest {
  return captureRequest({ method: 'POST', path, query: '', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) }, rules);
}

function conversation(...contents: string[]): unknown {
  return { model: 'gpt-4o', messages: contents.map((content, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content })) };
}

function exchange(recorded: RecordedRequest, ordinal = 0, key = exchangeKey('openai', recorded, rules)): Exchange {
  return { key, ordinal, upstream: 'openai', source: 'live', request: recorded, response: { status: 200, headers: {}, body: { json: { ok: true } } } };
}

function engineWith(...loaded: LoadedExchange[]): ReplayEngine {
  return new ReplayEngine({ file: FILE, keyRules: rules }, loaded);
}

/** Looks a request up and, when it does not hit, explains the miss. */
function miss(engine: ReplayEngine, sent: RecordedRequest, displayPath = `/openai${sent.path}`): ReplayMissError {
  const key = exchangeKey('openai', sent, rules);
  const result = engine.lookup(key);
  if (result.kind === 'hit') throw new Error('expected a miss, got a hit');
  return explainMiss(engine, 'openai', sent, key, result, displayPath);
}

describe('explainMiss for a request called more often than recorded', () => {
  test('names the call, the recordings and the way out', () => {
    const hello = request(conversation('Say hello'));
    const engine = engineWith({ exchange: exchange(hello), line: 14 }, { exchange: exchange(request(conversation('other'))), line: 15 });
    const key = exchangeKey('openai', hello, rules);
    expect(engine.lookup(key).kind).toBe('hit');
    const error = miss(engine, hello);
    expect(error).toBeInstanceOf(ModeltapeError);
    expect(error.code).toBe('replay_miss');
    expect(error.reason).toBe('exhausted');
    expect(error.call).toBe(1);
    expect(error.key).toBe(key);
    expect(error.message).toBe(
      'Failed to replay POST /openai/v1/chat/completions: this request was recorded once and this is call 2 (ordinal 1).\n' +
        `  tape: ${FILE} (2 exchanges; recorded at ${FILE}:14)\n` +
        `  key: ${key}\n` +
        'Identical requests replay their recorded answers in order. Pass --repeat last to reuse the last answer, or record the extra call with --mode auto.',
    );
  });

  test('counts several recordings and lists their lines', () => {
    const hello = request(conversation('Say hello'));
    const engine = engineWith({ exchange: exchange(hello, 0), line: 2 }, { exchange: exchange(hello, 1), line: 5 });
    const key = exchangeKey('openai', hello, rules);
    engine.lookup(key);
    engine.lookup(key);
    const error = miss(engine, hello);
    expect(error.message).toContain('this request was recorded 2 times and this is call 3 (ordinal 2)');
    expect(error.message).toContain(`recorded at ${FILE}:2, ${FILE}:5)`);
  });
});

describe('explainMiss for a request never recorded', () => {
  test('names the tape line of the nearest recording and the first differing path with both values', () => {
    const engine = engineWith(
      { exchange: exchange(request(conversation('Totally', 'unrelated'))), line: 2 },
      { exchange: exchange(request(conversation('Where is my parcel?', 'Ship to Paris'))), line: 14 },
    );
    const sent = request(conversation('Where is my parcel?', 'Ship to Lyon'));
    const error = miss(engine, sent);
    expect(error.reason).toBe('unrecorded');
    expect(error.message).toBe(
      'Failed to replay POST /openai/v1/chat/completions: no recorded exchange matches.\n' +
        `  tape: ${FILE} (2 exchanges, nearest at ${FILE}:14)\n` +
        `  key: ${exchangeKey('openai', sent, rules)}\n` +
        '  at .messages[1].content: recorded "Ship to Paris" sent "Ship to Lyon"\n' +
        'Record it with --mode auto, or declare a normalizer if the differing field is volatile.',
    );
    expect(error.nearest).toEqual({ line: 14, key: engine.entries()[1]!.exchange.key });
    expect(error.differences).toEqual([{ path: '.messages[1].content', change: 'changed', recorded: 'Ship to Paris', sent: 'Ship to Lyon' }]);
    expect(error.request).toBe(sent);
    expect(error.upstream).toBe('openai');
    expect(error.tape).toBe(FILE);
  });

  test('shows at most ten differences and counts the rest', () => {
    const recorded = Object.fromEntries(Array.from({ length: 14 }, (_, index) => [`field${index}`, index]));
    const sent = Object.fromEntries(Array.from({ length: 14 }, (_, index) => [`field${index}`, index + 100]));
    const error = miss(engineWith({ exchange: exchange(request(recorded)), line: 2 }), request(sent));
    const lines = error.message.split('\n');
    expect(lines.filter((line) => line.startsWith('  at .field'))).toHaveLength(10);
    expect(lines).toContain('  … and 4 more differences');
    expect(error.differences).toHaveLength(14);
  });

  test('lists what the tape holds when nothing was recorded on the route', () => {
    const engine = engineWith({ exchange: exchange(request(conversation('a'))), line: 2 }, { exchange: exchange(request(conversation('b'))), line: 3 });
    const sent = request({ input: 'embed me' }, '/v1/embeddings');
    const error = miss(engine, sent);
    expect(error.nearest).toBeUndefined();
    expect(error.differences).toEqual([]);
    expect(error.message).toContain(`  tape: ${FILE} (2 exchanges)\n`);
    expect(error.message).toContain('  nothing was recorded for POST /v1/embeddings (openai); the tape holds 2× POST /v1/chat/completions (openai)\n');
    expect(error.message.endsWith('Record it with --mode auto, or declare a normalizer if the differing field is volatile.')).toBe(true);
  });

  test('says the tape holds no exchanges when it is empty', () => {
    const error = miss(engineWith(), request(conversation('a')));
    expect(error.message).toContain(`  tape: ${FILE} (0 exchanges)\n`);
    expect(error.message).toContain('the tape holds no exchanges');
  });

  test('explains a stored key that no longer matches its own request as stale', () => {
    const hello = request(conversation('Say hello'));
    const stale = 'abcdef0123456789'.repeat(4);
    const engine = engineWith({ exchange: exchange(hello, 0, stale), line: 7 });
    const error = miss(engine, hello);
    expect(error.reason).toBe('unrecorded');
    expect(error.nearest).toEqual({ line: 7, key: stale });
    expect(error.differences).toEqual([]);
    expect(error.message).toContain(`nearest at ${FILE}:7)`);
    expect(error.message).toContain(
      'the nearest recording has the same method, path, headers and body, but its stored key (abcdef012345…) differs: the tape was edited by hand or keyed with other rules.',
    );
    expect(error.message.endsWith(`Run modeltape rekey ${FILE} to re-derive its keys (modeltape verify ${FILE} names the stale ones).`)).toBe(true);
  });

  test('names a recording made by this run instead of a line', () => {
    const engine = engineWith();
    engine.addRecorded(exchange(request(conversation('Ship to Paris'))));
    const error = miss(engine, request(conversation('Ship to Lyon')));
    expect(error.message).toContain(`(1 exchange, nearest at ${FILE} (recorded by this run))`);
    expect(error.nearest).toMatchObject({ line: undefined });
  });
});
