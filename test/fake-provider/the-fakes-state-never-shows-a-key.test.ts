import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { startProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { assertRenderedSnapshot, buildDriftReport, formatDriftReport, renderDriftHtml } from 'modeltape/replay';
import { readFileSync } from 'node:fs';
import { closeAfterEach } from '../support/close-after-each.js';
import { fakeAnthropicKey, fakeGoogleKey, fakeOpenAiKey } from '../support/fake-keys.js';
import { tempDir } from '../support/temp-dir.js';

// The fake now holds state between requests (Responses by id, Anthropic thread messages): every
// error built from that state quotes what a client sent (an id, a reasoning blob, the asked turn).
// A key sent there must reach no error body, no SDK message, and none of calls(), asked(),
// problems(). Each key is obviously fake, in a real key's shape, with a tail unlike any other text.
const TAIL = 'q7bK2mX9vL4pR8tW1nY5cF3hJ6dG0sA';
const KEYS = { openai: fakeOpenAiKey(`FAKE${TAIL}Zq9W`), anthropic: fakeAnthropicKey(`FAKE${TAIL}-Zq9W`), google: fakeGoogleKey(`FAKE${TAIL}`) };
const THREADS = { 'content-type': 'application/json', 'anthropic-beta': 'message-threads-2026-08-12', 'anthropic-version': '2023-06-01' };

/** Every four characters of the key past its prefix, and its last four: what a leak is (OpenAI's own errors show four). */
function partsOf(key: string): string[] {
  const secret = key.slice(key.indexOf('FAKE') + 4);
  const parts = new Set<string>([key.slice(-4)]);
  for (let start = 0; start + 4 <= secret.length; start++) parts.add(secret.slice(start, start + 4));
  return [...parts];
}

function shown(text: string, key: string): string[] {
  return partsOf(key).filter((part) => text.includes(part));
}

type Method = 'GET' | 'POST' | 'DELETE';
type Send = (path: string, body: unknown, headers?: Record<string, string>, method?: Method) => Promise<{ status: number; text: string }>;

interface StateError {
  name: string;
  /** @default 'POST' */
  method?: Method;
  path: string;
  /** Absent for a GET or a DELETE. */
  body?: unknown;
  status: number;
}

/** The conversation {@link stateErrors} asks about an unknown item of: the fake's first, made by {@link CONVERSATION}. */
const CONVERSATION_ID = 'fake-conv-0';
const CONVERSATION = { path: '/v1/conversations', body: { items: [{ type: 'message', role: 'user', content: 'hi' }] } };

/**
 * The requests whose errors are built from the fake's state, each with the key where a client
 * could put it. The item ones need {@link CONVERSATION} made first.
 */
function stateErrors(key: string): StateError[] {
  const ask = [{ role: 'user', content: 'hi' }];
  const id = encodeURIComponent(key);
  return [
    { name: 'an unknown previous_response_id', path: '/v1/responses', body: { model: 'gpt-4o', input: 'hi', previous_response_id: key }, status: 400 },
    { name: 'an unknown item_reference', path: '/v1/responses', body: { model: 'gpt-4o', input: [{ type: 'item_reference', id: key }] }, status: 404 },
    {
      name: 'an unknown item_reference with store: false',
      path: '/v1/responses',
      body: { model: 'gpt-4o', store: false, input: [{ type: 'item_reference', id: key }] },
      status: 404,
    },
    {
      name: 'a reasoning item sent back by an unknown id',
      path: '/v1/responses',
      body: { model: 'o3', input: [{ type: 'reasoning', id: key, summary: [] }, ...ask] },
      status: 404,
    },
    {
      name: 'a reasoning blob the fake did not make, the key being the blob',
      path: '/v1/responses',
      body: { model: 'o3', input: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: key }, ...ask] },
      status: 400,
    },
    {
      name: 'a reasoning blob the fake did not make, the key at its end',
      path: '/v1/responses',
      body: { model: 'o3', input: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: `gAAAAAB${'x'.repeat(20)} ${key}` }, ...ask] },
      status: 400,
    },
    {
      name: 'a thread continued from an unknown message',
      path: '/v1/messages',
      body: { model: 'claude-opus-4-8', max_tokens: 16, messages: ask, thread: { type: 'continue', previous_message_id: key } },
      status: 404,
    },
    {
      name: 'a thread of an unknown type',
      path: '/v1/messages',
      body: { model: 'claude-opus-4-8', max_tokens: 16, messages: ask, thread: { type: key } },
      status: 400,
    },
    // Stored responses (GET, DELETE, input_items, cancel) by an unknown id.
    { name: 'retrieving an unknown response', method: 'GET', path: `/v1/responses/${id}`, status: 404 },
    { name: 'deleting an unknown response', method: 'DELETE', path: `/v1/responses/${id}`, status: 404 },
    { name: 'the input items of an unknown response', method: 'GET', path: `/v1/responses/${id}/input_items`, status: 404 },
    { name: 'cancelling an unknown response', path: `/v1/responses/${id}/cancel`, body: {}, status: 404 },
    // Conversations: unknown ones, unknown items, and `conversation` with `previous_response_id`.
    { name: 'retrieving an unknown conversation', method: 'GET', path: `/v1/conversations/${id}`, status: 404 },
    { name: 'updating an unknown conversation', path: `/v1/conversations/${id}`, body: { metadata: { topic: 'x' } }, status: 404 },
    { name: 'deleting an unknown conversation', method: 'DELETE', path: `/v1/conversations/${id}`, status: 404 },
    { name: 'the items of an unknown conversation', method: 'GET', path: `/v1/conversations/${id}/items`, status: 404 },
    { name: 'adding items to an unknown conversation', path: `/v1/conversations/${id}/items`, body: { items: ask }, status: 404 },
    { name: 'a turn on an unknown conversation', path: '/v1/responses', body: { model: 'gpt-4o', input: 'hi', conversation: key }, status: 404 },
    {
      name: 'a turn on an unknown conversation, by object',
      path: '/v1/responses',
      body: { model: 'gpt-4o', input: 'hi', conversation: { id: key } },
      status: 404,
    },
    { name: 'retrieving an unknown item', method: 'GET', path: `/v1/conversations/${CONVERSATION_ID}/items/${id}`, status: 404 },
    { name: 'deleting an unknown item', method: 'DELETE', path: `/v1/conversations/${CONVERSATION_ID}/items/${id}`, status: 404 },
    { name: 'listing items after an unknown item', method: 'GET', path: `/v1/conversations/${CONVERSATION_ID}/items?after=${id}`, status: 404 },
    { name: 'listing items in an order named by the key', method: 'GET', path: `/v1/conversations/${CONVERSATION_ID}/items?order=${id}`, status: 400 },
    {
      name: 'conversation with a previous_response_id that is the key',
      path: '/v1/responses',
      body: { model: 'gpt-4o', input: 'hi', conversation: CONVERSATION_ID, previous_response_id: key },
      status: 400,
    },
    {
      name: 'a conversation that is the key with a previous_response_id',
      path: '/v1/responses',
      body: { model: 'gpt-4o', input: 'hi', conversation: key, previous_response_id: 'resp_1' },
      status: 400,
    },
  ];
}

/** What a fetch is given for a request: a body only where it has one. */
function init(method: Method, body: unknown, headers: Record<string, string>): RequestInit {
  return { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
}

function inProcess(fake: FakeProvider): Send {
  return async (path, body, headers = THREADS, method = 'POST') => {
    const response = await fake.fetch(`https://api.openai.com${path}`, init(method, body, headers));
    return { status: response.status, text: await response.text() };
  };
}

describe("the fake's state never shows a key", () => {
  const closing = closeAfterEach();
  const dir = tempDir();

  test.each(Object.entries(KEYS))('errors built from the stores, in process and over HTTP, never show a %s key', async (_kind, key) => {
    const fake = new FakeProvider();
    const server = closing(await fake.listen({ port: 0 }));
    const overHttp: Send = async (path, body, headers = THREADS, method = 'POST') => {
      const response = await fetch(`${server.url}${path}`, init(method, body, headers));
      return { status: response.status, text: await response.text() };
    };
    expect((await inProcess(fake)(CONVERSATION.path, CONVERSATION.body)).text).toContain(`"id":"${CONVERSATION_ID}"`);
    const cases = stateErrors(key);
    const seen: string[] = [];
    for (const send of [inProcess(fake), overHttp])
      for (const { name, method, path, body, status } of cases) {
        const answer = await send(path, body, THREADS, method);
        expect({ name, status: answer.status }).toEqual({ name, status });
        expect({ name, shown: shown(answer.text, key) }).toEqual({ name, shown: [] });
        seen.push(name);
      }
    expect(seen).toHaveLength(2 * cases.length);
    const kept = JSON.stringify([fake.calls(), fake.asked(), fake.problems()]);
    expect(fake.calls()).toHaveLength(1 + 2 * cases.length);
    expect(shown(kept, key)).toEqual([]);
  });

  test('a thread and a response chain that hold a key: continuing twice, changing the system, and running out of script show none of it', async () => {
    const key = KEYS.anthropic;
    const fake = new FakeProvider().willSay('Noted.').willSay('Again.').willSay('Kept.');
    const send = inProcess(fake);
    const first = await send('/v1/messages', {
      model: 'claude-opus-4-8',
      max_tokens: 16,
      system: `Use ${key} for the billing API.`,
      messages: [{ role: 'user', content: `My key is ${key}` }],
      thread: { type: 'create' },
    });
    const id = (JSON.parse(first.text) as { id: string }).id;
    const next = {
      model: 'claude-opus-4-8',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'and then?' }],
      thread: { type: 'continue', previous_message_id: id },
    };
    const answers = [
      await send('/v1/messages', next),
      await send('/v1/messages', next), // already continued
      await send('/v1/messages', { ...next, system: `Now use ${key}.` }), // a continue may not change the system
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 400, 400]);
    // The chain's prompt holds the key; the script then runs out on a turn that stands on it.
    const chained = await send('/v1/responses', { model: 'gpt-4o', input: `Remember ${KEYS.openai}` });
    const ranOut = await send('/v1/responses', { model: 'gpt-4o', input: 'and?', previous_response_id: (JSON.parse(chained.text) as { id: string }).id });
    expect(ranOut.status).toBe(422);
    expect(ranOut.text).toContain('script ran out');
    for (const answer of [first, ...answers, ranOut]) expect(shown(answer.text, key)).toEqual([]);
    expect(shown(ranOut.text, KEYS.openai)).toEqual([]);
    const kept = JSON.stringify([fake.calls(), fake.asked(), fake.problems()]);
    expect(fake.asked()[1]!.prompt).toContain('[anthropic-key');
    expect(shown(kept, key)).toEqual([]);
    expect(shown(kept, KEYS.openai)).toEqual([]);
  });

  test('ids dropped to stay within historyLimit are named as dropped, and the turns they held a key in show none of it', async () => {
    const key = KEYS.openai;
    const fake = new FakeProvider({ historyLimit: 1 });
    const send = inProcess(fake);
    const held = JSON.parse((await send('/v1/responses', { model: 'gpt-4o', input: `Remember ${key}` })).text) as { id: string; output: Array<{ id: string }> };
    await send('/v1/responses', { model: 'gpt-4o', input: 'something else' }); // drops the first
    const thread = JSON.parse(
      (await send('/v1/messages', { model: 'claude-opus-4-8', max_tokens: 16, messages: [{ role: 'user', content: key }], thread: { type: 'create' } })).text,
    ) as { id: string };
    await send('/v1/messages', { model: 'claude-opus-4-8', max_tokens: 16, messages: [{ role: 'user', content: 'other' }], thread: { type: 'create' } });
    const answers = [
      await send('/v1/responses', { model: 'gpt-4o', input: 'and?', previous_response_id: held.id }),
      await send('/v1/responses', { model: 'gpt-4o', input: [{ type: 'item_reference', id: held.output[0]!.id }] }),
      await send('/v1/messages', {
        model: 'claude-opus-4-8',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'and?' }],
        thread: { type: 'continue', previous_message_id: thread.id },
      }),
    ];
    // The dropped response by its id: retrieved, deleted, its input items, cancelled.
    const byId = `/v1/responses/${encodeURIComponent(held.id)}`;
    answers.push(
      await send(byId, undefined, THREADS, 'GET'),
      await send(byId, undefined, THREADS, 'DELETE'),
      await send(`${byId}/input_items`, undefined, THREADS, 'GET'),
      await send(`${byId}/cancel`, {}),
    );
    expect(answers.map((answer) => answer.status)).toEqual([400, 404, 404, 404, 404, 404, 404]);
    for (const answer of [answers[0]!, ...answers.slice(3)]) expect(answer.text).toContain('dropped');
    for (const answer of answers) expect(shown(answer.text, key)).toEqual([]);
  });

  test('a conversation whose items hold a key: turns on it, its items and the errors quoting them show none of it, nor does the tape', async () => {
    const key = KEYS.openai;
    const fake = new FakeProvider().willSay('Noted.');
    const upstream = closing(await fake.listen({ port: 0 }));
    const tape = `${dir}/conversation.jsonl`;
    const proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => {} });
    const send = async (method: Method, path: string, body?: unknown) => {
      const response = await fetch(`${proxy.url}/openai${path}`, init(method, body, { 'content-type': 'application/json' }));
      return { status: response.status, text: await response.text() };
    };
    const made = await send('POST', '/v1/conversations', {
      metadata: { note: `billing uses ${key}` },
      items: [
        { type: 'message', role: 'developer', content: `Use ${key} for the billing API.` },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: `My key is ${key}` }] },
      ],
    });
    const id = encodeURIComponent(CONVERSATION_ID);
    const answers = [
      made,
      await send('GET', `/v1/conversations/${id}/items?order=asc`),
      await send('GET', `/v1/conversations/${id}`),
      await send('POST', '/v1/responses', { model: 'gpt-4o', input: 'Which key?', conversation: CONVERSATION_ID }),
      // The script is spent: the 422 quotes the turn, whose conversation holds the key.
      await send('POST', '/v1/responses', { model: 'gpt-4o', input: 'And again?', conversation: CONVERSATION_ID, stream: true }),
      await send('POST', `/v1/conversations/${id}/items`, { items: [{ type: 'message', role: 'user', content: `Still ${key}` }, key] }),
      await send('POST', `/v1/conversations/${id}`, { metadata: { note: key.repeat(12) } }),
      await send('POST', '/v1/responses', { model: 'gpt-4o', input: `Keep ${key}`, conversation: CONVERSATION_ID, previous_response_id: 'resp_1' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 422, 400, 400, 400]);
    expect(answers[4]!.text).toContain('script ran out');
    // What the answers show is the fake's own text: a 200 quoting the items gives them back as sent.
    for (const answer of answers.slice(4)) expect(shown(answer.text, key)).toEqual([]);
    const summary = await proxy.close();
    const written = readFileSync(tape, 'utf8');
    expect({ shown: shown(written, key), summary: shown(JSON.stringify(summary), key) }).toEqual({ shown: [], summary: [] });
    // Only the two turns' requests hold no key, and their answers none either (the 422 quotes the turn, redacted).
    expect({ recorded: summary.recorded, refused: summary.refused }).toEqual({ recorded: 2, refused: answers.length - 2 });
    expect(written).toContain('script ran out');
    expect(fake.calls()).toHaveLength(answers.length);
    expect(fake.asked()[0]!.system).toContain('[openai-key');
    expect(shown(JSON.stringify([fake.calls(), fake.asked(), fake.problems()]), key)).toEqual([]);
  });

  test('the proxy recording the fake refuses an exchange whose request holds a key, and writes no part of it, state errors included', async () => {
    const key = KEYS.openai;
    const upstream = closing(await new FakeProvider().listen({ port: 0 }));
    const tape = `${dir}/state.jsonl`;
    const proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => {} });
    const headers = { 'content-type': 'application/json' };
    // The conversation the item errors ask about: it holds no key, so it is the one exchange recorded.
    expect((await fetch(`${proxy.url}/openai${CONVERSATION.path}`, init('POST', CONVERSATION.body, headers))).status).toBe(200);
    const sent = stateErrors(key).filter((entry) => /^\/v1\/(responses|conversations)\b/.test(entry.path));
    for (const { name, method = 'POST', path, body, status } of sent) {
      const response = await fetch(`${proxy.url}/openai${path}`, init(method, body, headers));
      expect({ name, status: response.status }).toEqual({ name, status });
      expect({ name, shown: shown(await response.text(), key) }).toEqual({ name, shown: [] });
    }
    const summary = await proxy.close();
    // A key-shaped query pair is neither stored nor keyed (recordings/redaction.ts isSecretQueryPair):
    // those two exchanges are recorded without it, and their answers quote it redacted.
    const inQuery = sent.filter((entry) => entry.path.includes('?'));
    expect(inQuery).toHaveLength(2);
    expect(summary.refused).toBe(sent.length - inQuery.length);
    const recorded = loadTape(tape).exchanges.map(
      ({ exchange }) => `${exchange.request.method} ${exchange.request.path} ${JSON.stringify(exchange.request.query)}`,
    );
    expect(recorded).toEqual([`POST ${CONVERSATION.path} []`, ...inQuery.map((entry) => `GET ${entry.path.split('?')[0]} []`)]);
    expect(shown(readFileSync(tape, 'utf8'), key)).toEqual([]);
    expect(shown(JSON.stringify(summary), key)).toEqual([]);
  });

  test('a chain recorded from the fake, drifted to a key as its previous_response_id: the drift report, its page and JSON, and a rendered snapshot show none of it', async () => {
    const key = KEYS.openai;
    const upstream = closing(await new FakeProvider().listen({ port: 0 }));
    const tape = `${dir}/chain.jsonl`;
    const post = async (base: string, body: unknown) =>
      (await fetch(`${base}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).text();
    const recorder = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => {} });
    const { id } = JSON.parse(await post(recorder.baseUrls.openai, { model: 'gpt-4o', input: 'hi' })) as { id: string };
    await post(recorder.baseUrls.openai, { model: 'gpt-4o', input: 'next', previous_response_id: id });
    expect((await recorder.close()).recorded).toBe(2);
    const replay = await startProxy({ tape, onMiss: 'nearest', log: () => {} });
    const drifted = { model: 'gpt-4o', input: 'next', previous_response_id: key };
    const answer = await post(replay.baseUrls.openai, drifted);
    const report = buildDriftReport(await replay.close(), ['node', 'agent.mjs']);
    expect(report.totals.drifted).toBe(1);
    const snapshot = assertRenderedSnapshot(drifted, 'state', { dir, env: { MODELTAPE_UPDATE: '1' }, log: () => {} });
    const outputs = {
      answer,
      text: formatDriftReport(report),
      html: renderDriftHtml(report),
      json: JSON.stringify(report),
      snapshot: readFileSync(snapshot.file, 'utf8'),
    };
    expect(Object.entries(outputs).filter(([, text]) => shown(text, key).length > 0)).toEqual([]);
    expect(outputs.text).toContain('[openai-key');
  });

  test('prototype names as ids and thread fields are ids like any other: not found, and nothing is inherited', async () => {
    const fake = new FakeProvider();
    const send = inProcess(fake);
    const statuses: Array<[string, number[]]> = [];
    for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      statuses.push([
        id,
        [
          (await send('/v1/responses', { model: 'gpt-4o', input: 'hi', previous_response_id: id })).status,
          (await send('/v1/responses', { model: 'gpt-4o', input: [{ type: 'item_reference', id }] })).status,
          (
            await send('/v1/messages', {
              model: 'claude-opus-4-8',
              max_tokens: 16,
              messages: [{ role: 'user', content: 'hi' }],
              thread: { type: 'continue', previous_message_id: id },
            })
          ).status,
        ],
      ]);
    }
    expect(statuses).toEqual(['__proto__', 'constructor', 'toString', 'hasOwnProperty'].map((id) => [id, [400, 404, 404]]));
    // A `__proto__` key inside `thread` is a plain field: the thread is created, not continued.
    const created = await send(
      '/v1/messages',
      JSON.parse(
        '{"model":"claude-opus-4-8","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"thread":{"type":"create","__proto__":{"type":"continue"}}}',
      ),
    );
    expect(created.status).toBe(200);
    expect(fake.asked().at(-1)!.messages).toHaveLength(1);
  });
});
