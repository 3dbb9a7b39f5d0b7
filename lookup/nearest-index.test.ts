import { describe, expect, test } from 'vitest';
import {
  captureRequest,
  compileKeyRules,
  exchangeKey,
  keyInputs,
  type CompiledKeyRules,
  type Exchange,
  type LoadedExchange,
  type RecordedRequest,
} from '../recordings/internal.js';
import { diffJson } from '../core/internal.js';
import { NEAREST_INDEX_MINIMUM, NearestIndex, comparedValues, type ComparedValues } from './nearest-index.js';
import { ReplayEngine, compareInputs, textDistance, type ReplayEntry } from './replay-engine.js';

/** A seeded generator (mulberry32), so every run builds the same tapes. */
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

type Random = () => number;
const integer = (random: Random, below: number): number => Math.floor(random() * below);
const pick = <T>(random: Random, items: readonly T[]): T => items[integer(random, items.length)]!;
const clone = <T>(value: T): T => structuredClone(value);

/** How many leaves diffJson finds differing over the three roots, as nearest() counts them. */
function differencesBetween(recorded: ComparedValues, sent: ComparedValues): number {
  return diffJson(recorded.body, sent.body).length + diffJson(recorded.headers, sent.headers).length + diffJson(recorded.query, sent.query).length;
}

function values(body: unknown, headers: Record<string, string> = {}, query: Record<string, string> = {}): ComparedValues {
  return { body, headers, query };
}

// ---------------------------------------------------------------------------------------------
// Arbitrary JSON, and small edits of it: every kind, empty containers, odd keys, lengths.

const KEYS = ['a', 'b', 'c', '0', 'odd key', ''];

function arbitrary(random: Random, depth = 0): unknown {
  const roll = integer(random, depth > 3 ? 6 : 9);
  switch (roll) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return integer(random, 4) - 1;
    case 3:
      return pick(random, ['', 'x', 'y', '1', 'null', 'true']);
    case 4:
      return random() < 0.5 ? [] : {};
    case 5:
      return pick(random, [0.5, -0, 1e21]);
    case 6:
    case 7: {
      const object: Record<string, unknown> = {};
      for (let count = integer(random, 4); count > 0; count--) object[pick(random, KEYS)] = arbitrary(random, depth + 1);
      return object;
    }
    default:
      return Array.from({ length: integer(random, 4) }, () => arbitrary(random, depth + 1));
  }
}

/** One small edit somewhere in a value: a new leaf, a new kind, a key or element more or less. */
function edit(random: Random, value: unknown, depth = 0): unknown {
  const descend = depth < 6 && value !== null && typeof value === 'object' && random() < 0.75;
  if (descend && Array.isArray(value)) {
    const copy = [...value];
    const roll = random();
    if (copy.length > 0 && roll < 0.6) {
      const at = integer(random, copy.length);
      copy[at] = edit(random, copy[at], depth + 1);
    } else if (copy.length > 0 && roll < 0.8) copy.pop();
    else copy.push(arbitrary(random, depth + 1));
    return copy;
  }
  if (descend) {
    const copy = { ...(value as Record<string, unknown>) };
    const names = Object.keys(copy);
    const roll = random();
    if (names.length > 0 && roll < 0.6) {
      const name = pick(random, names);
      copy[name] = edit(random, copy[name], depth + 1);
    } else if (names.length > 0 && roll < 0.8) delete copy[pick(random, names)];
    else copy[pick(random, KEYS)] = arbitrary(random, depth + 1);
    return copy;
  }
  return arbitrary(random, depth);
}

function edits(random: Random, value: unknown, count: number): unknown {
  for (let step = 0; step < count; step++) value = edit(random, value);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Realistic OpenAI chat requests, and the ways a request drifts from its recording.

const MODELS = ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'o3-mini'];
const SYSTEM_PROMPTS = [
  'You are a helpful assistant for an online shop. Answer briefly.',
  'You are a support agent. Be polite, ask for the order number when needed.',
  'You translate customer messages to English and summarize them.',
];
const WORDS =
  'parcel ship order refund Paris Lyon invoice delayed address change cancel track weather tomorrow please thanks when where how much cost account password reset'.split(
    ' ',
  );
const TOOLS = ['get_weather', 'track_parcel', 'create_ticket', 'search_docs', 'refund_order'].map((name, index) => ({
  type: 'function',
  function: {
    name,
    description: `Tool ${name}: looks things up for the assistant (${index}).`,
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to look up' }, limit: { type: 'integer', minimum: 1, maximum: 10 + index } },
      required: index % 2 === 0 ? ['query'] : ['query', 'limit'],
    },
  },
}));

interface Chat {
  model: string;
  messages: Array<Record<string, unknown>>;
  tools?: unknown[];
  temperature?: number;
  stream?: boolean;
  user?: string;
  [field: string]: unknown;
}

function sentence(random: Random): string {
  return Array.from({ length: 3 + integer(random, 8) }, () => pick(random, WORDS)).join(' ');
}

function chat(random: Random): Chat {
  const body: Chat = { model: pick(random, MODELS), messages: [{ role: 'system', content: pick(random, SYSTEM_PROMPTS) }] };
  for (let turn = 1 + integer(random, 6); turn > 0; turn--) {
    body.messages.push({ role: 'user', content: sentence(random) });
    if (turn > 1) body.messages.push({ role: 'assistant', content: sentence(random) });
  }
  if (random() < 0.6) body.tools = TOOLS.filter(() => random() < 0.5).map(clone);
  if (random() < 0.5) body.temperature = pick(random, [0, 0.2, 0.7, 1]);
  if (random() < 0.3) body.stream = true;
  if (random() < 0.3) body.user = `user-${integer(random, 1000)}`;
  return body;
}

/** A request that differs from `body` the way real drift does; each kind is asked for by name. */
const DRIFTS = {
  oneMessage(random: Random, body: Chat): Chat {
    const copy = clone(body);
    const message = pick(random, copy.messages);
    message.content = random() < 0.5 ? sentence(random) : `${String(message.content)} ${pick(random, WORDS)}`;
    return copy;
  },
  tools(random: Random, body: Chat): Chat {
    const copy = clone(body);
    const tools = copy.tools ?? [];
    const roll = random();
    if (tools.length > 0 && roll < 0.3) tools.splice(integer(random, tools.length), 1);
    else if (tools.length > 1 && roll < 0.5) tools.reverse();
    else if (tools.length > 0 && roll < 0.8) (pick(random, tools) as { function: { description: string } }).function.description = sentence(random);
    else tools.push(clone(pick(random, TOOLS)));
    copy.tools = tools;
    return copy;
  },
  model(random: Random, body: Chat): Chat {
    return {
      ...clone(body),
      model: pick(
        random,
        MODELS.filter((model) => model !== body.model),
      ),
    };
  },
  arrayLength(random: Random, body: Chat): Chat {
    const copy = clone(body);
    if (copy.messages.length > 2 && random() < 0.5) copy.messages.splice(-1 - integer(random, 2));
    else copy.messages.push({ role: 'assistant', content: sentence(random) }, { role: 'user', content: sentence(random) });
    return copy;
  },
  field(random: Random, body: Chat): Chat {
    const copy = clone(body);
    if (copy.temperature !== undefined && random() < 0.5) delete copy.temperature;
    else copy.temperature = pick(random, [0.1, 0.9]);
    if (random() < 0.3) copy.stream = !copy.stream;
    if (random() < 0.2) copy.response_format = { type: 'json_object' };
    return copy;
  },
};
type Drift = keyof typeof DRIFTS;
const DRIFT_NAMES = Object.keys(DRIFTS) as Drift[];

interface Shape {
  body: unknown;
  beta?: string;
  query?: string;
}

function recorded(shape: Shape, rules: CompiledKeyRules): RecordedRequest {
  return captureRequest(
    {
      method: 'POST',
      path: '/v1/chat/completions',
      query: shape.query ?? '',
      headers: { 'content-type': 'application/json', ...(shape.beta ? { 'openai-beta': shape.beta } : {}) },
      body: Buffer.from(JSON.stringify(shape.body)),
    },
    rules,
  );
}

function drifted(random: Random, shape: Shape): Shape {
  const copy: Shape = { ...shape, body: DRIFTS[pick(random, DRIFT_NAMES)](random, shape.body as Chat) };
  if (random() < 0.1) copy.beta = copy.beta === undefined ? 'assistants=v2' : undefined;
  if (random() < 0.1) copy.query = copy.query === undefined ? 'api-version=2024-10-21' : undefined;
  return copy;
}

// ---------------------------------------------------------------------------------------------

describe('NearestIndex', () => {
  test('estimates exactly as many differing leaves as diffJson counts, for arbitrary JSON and its edits', () => {
    // One index for every seed, so queries meet postings both folded and still in the tail.
    const index = new NearestIndex();
    const stored: ComparedValues[] = [];
    const checked = { estimates: 0, folded: 0, tail: 0 };
    for (let seed = 1; seed <= 60; seed++) {
      const random = seeded(seed);
      const base = arbitrary(random);
      for (let count = 0; count < 50; count++) {
        const entry = values(
          edits(random, base, integer(random, 4)),
          random() < 0.3 ? { 'openai-beta': pick(random, ['v1', 'v2']) } : {},
          random() < 0.3 ? { 'limit#0': '1' } : {},
        );
        stored.push(entry);
        index.add(entry);
      }
      const sent = values(edits(random, base, 1 + integer(random, 3)), random() < 0.5 ? { 'openai-beta': 'v1' } : {}, {});
      const candidates = index.closest(sent, stored.length);
      expect(candidates.map(({ id }) => id)).toEqual(stored.map((_, id) => id));
      for (const { id, estimate } of candidates) {
        expect(estimate, `seed ${seed}, entry ${id}`).toBe(differencesBetween(stored[id]!, sent));
        checked.estimates++;
      }
      if (index.postings > index.tailPostings) checked.folded++;
      if (index.tailPostings > 0) checked.tail++;
    }
    expect(checked.estimates).toBe((50 * 60 * 61) / 2);
    expect(checked.folded).toBeGreaterThan(5);
    expect(checked.tail).toBeGreaterThan(5);
  });

  test('estimates exactly for chat requests whether the postings are folded or still in the tail', () => {
    const random = seeded(7);
    const rules = compileKeyRules();
    const index = new NearestIndex();
    const stored: ComparedValues[] = [];
    const add = (count: number): void => {
      for (let added = 0; added < count; added++) {
        const shape: Shape = stored.length > 0 && random() < 0.7 ? drifted(random, { body: pick(random, stored).body }) : { body: chat(random) };
        const entry = comparedValues(keyInputs('openai', recorded(shape, rules), rules));
        stored.push(entry);
        index.add(entry);
      }
    };
    const check = (): number => {
      const sent = comparedValues(keyInputs('openai', recorded(drifted(random, { body: pick(random, stored).body }), rules), rules));
      const candidates = index.closest(sent, stored.length);
      for (const { id, estimate } of candidates) expect(estimate).toBe(differencesBetween(stored[id]!, sent));
      return candidates.length;
    };
    add(200);
    expect(index.tailPostings).toBe(index.postings);
    expect(check()).toBe(200);
    expect(index.tailPostings).toBe(0);
    add(10);
    expect(check()).toBe(210);
    const tail = index.tailPostings;
    expect(tail).toBeGreaterThan(0);
    add(400);
    expect(index.tailPostings).toBeGreaterThan(tail);
    expect(check()).toBe(610);
    expect(index.tailPostings).toBe(0);
  });

  test('ranks by estimate, lower id first, and keeps every tie with the last one kept', () => {
    const index = new NearestIndex();
    const hello = values({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] });
    index.add(values({ model: 'gpt-4o', messages: [{ role: 'user', content: 'bye' }] }));
    index.add(hello);
    index.add(values({ model: 'o3-mini', messages: [] }));
    index.add(hello);
    // Ties with the last kept estimate come along (the caller breaks them by text distance).
    expect(index.closest(hello, 1)).toEqual([
      { id: 1, estimate: 0 },
      { id: 3, estimate: 0 },
    ]);
    expect(index.closest(hello, 3)).toEqual([
      { id: 0, estimate: 1 },
      { id: 1, estimate: 0 },
      { id: 3, estimate: 0 },
    ]);
    expect(index.closest(hello, 0)).toEqual([]);
    expect(new NearestIndex().closest(hello, 16)).toEqual([]);
  });

  test('keeps hashes, not values: long texts take no more room than short ones', () => {
    const build = (length: number): NearestIndex => {
      const index = new NearestIndex();
      for (let id = 0; id < 100; id++) index.add(values({ messages: [{ role: 'user', content: `${id}`.padEnd(length, 'x') }] }));
      index.closest(values(null), 1);
      return index;
    };
    const short = build(10);
    const long = build(100_000);
    // Body: the object, .messages (member, array), [0] (object), .role and .content (member, value each); headers and query: an empty object each.
    expect(short.postings).toBe(100 * 10);
    expect(long.byteLength).toBe(short.byteLength);
  });

  test('compares the body unwrapped from its json form, and the query by name and position', () => {
    const rules = compileKeyRules();
    const request = captureRequest(
      { method: 'GET', path: '/v1/models', query: 'limit=2&order=asc&limit=3', headers: { 'openai-beta': 'v2' }, body: Buffer.alloc(0) },
      rules,
    );
    expect(comparedValues(keyInputs('openai', request, rules))).toEqual({
      body: null,
      headers: { 'openai-beta': 'v2' },
      query: { 'limit#0': '2', 'limit#1': '3', 'order#2': 'asc' },
    });
    const json = captureRequest(
      { method: 'POST', path: '/v1/chat/completions', query: '', headers: { 'content-type': 'application/json' }, body: Buffer.from('{"model":"gpt-4o"}') },
      rules,
    );
    expect(comparedValues(keyInputs('openai', json, rules)).body).toEqual({ model: 'gpt-4o' });
  });
});

describe('ReplayEngine.nearest with an index', () => {
  /**
   * The nearest recording as the full scan finds it: the fewest differences; among as many, the
   * closest values (textDistance); then the first in the engine's order.
   */
  function fullScan(entries: readonly ReplayEntry[], sent: ComparedValues, rules: CompiledKeyRules): { entry: ReplayEntry; total: number } {
    let best: { entry: ReplayEntry; total: number; distance: number } | undefined;
    for (const entry of entries) {
      const recordedValues = comparedValues(keyInputs(entry.exchange.upstream, entry.exchange.request, rules));
      const total = differencesBetween(recordedValues, sent);
      if (best !== undefined && total > best.total) continue;
      const distance = textDistance(compareInputs(recordedValues, sent, Number.POSITIVE_INFINITY));
      if (best === undefined || total < best.total || distance < best.distance) best = { entry, total, distance };
    }
    return best!;
  }

  test('chooses what the full scan chooses, over hundreds of generated tapes and drifted requests', () => {
    const checked = { queries: 0, byDrift: new Map<string, number>(), indexedRoutes: 0, added: 0, exact: 0 };
    for (let seed = 1; seed <= 40; seed++) {
      const random = seeded(1000 + seed);
      const rules = seed % 4 === 0 ? compileKeyRules({ headers: ['openai-beta'], normalizers: [{ path: '.user' }] }) : compileKeyRules();
      const originals: Shape[] = Array.from({ length: 12 }, () => ({ body: chat(random), ...(random() < 0.2 ? { beta: 'assistants=v2' } : {}) }));
      const shapes: Shape[] = [];
      for (let count = NEAREST_INDEX_MINIMUM + integer(random, 150); count > 0; count--) {
        const roll = random();
        if (roll < 0.1 && shapes.length > 0)
          shapes.push(pick(random, shapes)); // recorded twice: the same key, ordinal 1
        else if (roll < 0.3) shapes.push({ body: chat(random) });
        else shapes.push(drifted(random, pick(random, [...originals, ...shapes])));
      }
      const ordinals = new Map<string, number>();
      const loaded: LoadedExchange[] = shapes.map((shape, index) => {
        const request = recorded(shape, rules);
        const key = exchangeKey('openai', request, rules);
        const ordinal = ordinals.get(key) ?? 0;
        ordinals.set(key, ordinal + 1);
        const exchange: Exchange = {
          key,
          ordinal,
          upstream: 'openai',
          source: 'live',
          request,
          response: { status: 200, headers: {}, body: { json: { line: index + 2 } } },
        };
        return { exchange, line: index + 2 };
      });
      // A second route small enough to be scanned, to check both paths keep to their route.
      const other = Array.from({ length: 5 }, (_, index) => {
        const request = { ...recorded({ body: chat(random) }, rules), path: '/v1/responses' };
        const exchange: Exchange = {
          key: exchangeKey('openai', request, rules),
          ordinal: 0,
          upstream: 'openai',
          source: 'live',
          request,
          response: { status: 200, headers: {}, body: { json: {} } },
        };
        return { exchange, line: shapes.length + 2 + index };
      });
      const engine = new ReplayEngine({ file: 'tapes/generated.jsonl', keyRules: rules }, [...loaded, ...other].reverse());
      // The engine's order: by ordinal, then line; then what this run recorded, in order.
      const order = [...loaded].sort((a, b) => a.exchange.ordinal - b.exchange.ordinal || a.line - b.line).map(({ exchange }) => exchange);
      const inOrder = (): ReplayEntry[] => {
        const byExchange = new Map(engine.entries().map((entry) => [entry.exchange, entry]));
        return order.map((exchange) => byExchange.get(exchange)!);
      };
      expect(engine.routes()).toEqual([
        { route: 'POST /v1/chat/completions (openai)', count: loaded.length },
        { route: 'POST /v1/responses (openai)', count: 5 },
      ]);
      checked.indexedRoutes++;
      for (let query = 0; query < 10; query++) {
        if (query === 5 && seed % 2 === 0) {
          // Auto mode records what missed; later misses must see it.
          for (let count = 0; count < 8; count++) {
            const request = recorded(drifted(random, pick(random, shapes)), rules);
            const exchange: Exchange = {
              key: exchangeKey('openai', request, rules),
              ordinal: 0,
              upstream: 'openai',
              source: 'live',
              request,
              response: { status: 200, headers: {}, body: { json: {} } },
            };
            if (engine.nextOrdinal(exchange.key) > 0) continue;
            engine.addRecorded(exchange);
            order.push(exchange);
            checked.added++;
          }
        }
        const drift = pick(random, [...DRIFT_NAMES, 'copy', 'fresh'] as const);
        const base = pick(random, [...originals, ...shapes]);
        const shape: Shape = drift === 'copy' ? base : drift === 'fresh' ? { body: chat(random) } : { ...base, body: DRIFTS[drift](random, base.body as Chat) };
        const sent = recorded(shape, rules);
        const nearest = engine.nearest('openai', sent)!;
        const expected = fullScan(inOrder(), comparedValues(keyInputs('openai', sent, rules)), rules);
        expect(nearest.total, `seed ${seed}, query ${query} (${drift})`).toBe(expected.total);
        expect(nearest.entry, `seed ${seed}, query ${query} (${drift})`).toBe(expected.entry);
        expect(nearest.differences).toHaveLength(nearest.total);
        if (nearest.total === 0) checked.exact++;
        checked.queries++;
        checked.byDrift.set(drift, (checked.byDrift.get(drift) ?? 0) + 1);
        if (query === 9) {
          const small = recorded({ body: chat(random) }, rules);
          const smallNearest = engine.nearest('openai', { ...small, path: '/v1/responses' })!;
          expect(smallNearest.entry.exchange.request.path).toBe('/v1/responses');
          expect(smallNearest.total).toBe(
            fullScan(
              engine.entries().filter(({ exchange }) => exchange.request.path === '/v1/responses'),
              comparedValues(keyInputs('openai', small, rules)),
              rules,
            ).total,
          );
        }
      }
    }
    expect(checked.queries).toBe(400);
    expect(checked.indexedRoutes).toBe(40);
    expect(checked.added).toBeGreaterThan(50);
    expect(checked.exact).toBeGreaterThan(0);
    for (const drift of [...DRIFT_NAMES, 'copy', 'fresh']) expect(checked.byDrift.get(drift), drift).toBeGreaterThan(20);
  });

  test('explains a miss on a large route like the scan does: the drifted message, the first recording among equals', () => {
    const rules = compileKeyRules();
    const conversation = (first: string, last: string): unknown => ({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: first },
        { role: 'assistant', content: 'In Paris.' },
        { role: 'user', content: last },
      ],
    });
    const loaded: LoadedExchange[] = Array.from({ length: NEAREST_INDEX_MINIMUM * 2 }, (_, index) => {
      // Odd lines: one request recorded 64 times (ordinals 0…63); even lines: 64 others, two leaves off.
      const request = recorded(
        {
          body:
            index % 2 === 0
              ? conversation(`Where is parcel ${index}?`, `Ship it to Paris (${index})`)
              : conversation('Where is my parcel?', 'Ship it to Paris'),
        },
        rules,
      );
      const key = exchangeKey('openai', request, rules);
      return {
        exchange: {
          key,
          ordinal: index % 2 === 0 ? 0 : (index - 1) / 2,
          upstream: 'openai',
          source: 'live',
          request,
          response: { status: 200, headers: {}, body: { json: {} } },
        },
        line: index + 2,
      };
    });
    const engine = new ReplayEngine({ file: 'tapes/parcel.jsonl', keyRules: rules }, loaded);
    const nearest = engine.nearest('openai', recorded({ body: conversation('Where is my parcel?', 'Ship it to Lyon') }, rules))!;
    expect(nearest.entry.line).toBe(3);
    expect(nearest.total).toBe(1);
    expect(nearest.differences).toEqual([{ path: '.messages[2].content', change: 'changed', recorded: 'Ship it to Paris', sent: 'Ship it to Lyon' }]);
  });
  test('the engine indexes each large route as it is made, not a small one, and answers from the start as the scan does', async () => {
    const rules = compileKeyRules();
    const random = seeded(77);
    const shapes: Shape[] = Array.from({ length: NEAREST_INDEX_MINIMUM * 20 }, () => ({ body: chat(random) }));
    const loaded: LoadedExchange[] = shapes.map((shape, index) => {
      const request = recorded(shape, rules);
      return {
        exchange: {
          key: exchangeKey('openai', request, rules),
          ordinal: 0,
          upstream: 'openai',
          source: 'live',
          request,
          response: { status: 200, headers: {}, body: { json: {} } },
        },
        line: index + 2,
      };
    });
    const small = Array.from({ length: 3 }, (_, index) => {
      const request = { ...recorded({ body: chat(random) }, rules), path: '/v1/responses' };
      return {
        exchange: {
          key: exchangeKey('openai', request, rules),
          ordinal: 0,
          upstream: 'openai',
          source: 'live' as const,
          request,
          response: { status: 200, headers: {}, body: { json: {} } },
        },
        line: shapes.length + 2 + index,
      };
    });
    const engine = new ReplayEngine({ file: 'tapes/warm.jsonl', keyRules: rules }, [...loaded, ...small]);
    expect(engine.indexedCount('openai', 'POST', '/v1/chat/completions')).toBe(shapes.length);
    expect(engine.indexedCount('openai', 'POST', '/v1/responses')).toBe(0);
    // warmNearest only compiles the scoring code ahead, on a later turn; stopped, it does nothing.
    const stopped = engine.warmNearest();
    stopped.stop();
    await stopped.done;
    await engine.warmNearest().done;
    expect(engine.indexedCount('openai', 'POST', '/v1/chat/completions')).toBe(shapes.length);

    const entries = [...engine.entries()].filter(({ exchange }) => exchange.request.path === '/v1/chat/completions');
    for (let query = 0; query < 20; query++) {
      const base = pick(random, shapes);
      const drift = pick(random, DRIFT_NAMES);
      const sent = recorded({ ...base, body: DRIFTS[drift](random, base.body as Chat) }, rules);
      const nearest = engine.nearest('openai', sent)!;
      const expected = fullScan(entries, comparedValues(keyInputs('openai', sent, rules)), rules);
      expect(nearest.entry, `query ${query} (${drift})`).toBe(expected.entry);
      expect(nearest.total).toBe(expected.total);
    }
  });
});
