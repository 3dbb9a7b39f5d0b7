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

type Send = (path: string, body: unknown, headers?: Record<string, string>) => Promise<{ status: number; text: string }>;

/** The requests whose errors are built from the fake's state, each with the key where a client could put it. */
function stateErrors(key: string): Array<{ name: string; path: string; body: unknown; status: number }> {
  const ask = [{ role: 'user', content: 'hi' }];
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
  ];
}

function inProcess(fake: FakeProvider): Send {
  return async (path, body, headers = THREADS) => {
    const response = await fake.fetch(`https://api.openai.com${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: response.status, text: await response.text() };
  };
}

describe("the fake's state never shows a key", () => {
  const closing = closeAfterEach();
  const dir = tempDir();

  test.each(Object.entries(KEYS))('errors built from the stores, in process and over HTTP, never show a %s key', async (_kind, key) => {
    const fake = new FakeProvider();
    const server = closing(await fake.listen({ port: 0 }));
    const overHttp: Send = async (path, body, headers = THREADS) => {
      const response = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: response.status, text: await response.text() };
    };
    const cases = stateErrors(key);
    const seen: string[] = [];
    for (const send of [inProcess(fake), overHttp])
      for (const { name, path, body, status } of cases) {
        const answer = await send(path, body);
        expect({ name, status: answer.status }).toEqual({ name, status });
        expect({ name, shown: shown(answer.text, key) }).toEqual({ name, shown: [] });
        seen.push(name);
      }
    expect(seen).toHaveLength(2 * cases.length);
    const kept = JSON.stringify([fake.calls(), fake.asked(), fake.problems()]);
    expect(fake.calls()).toHaveLength(2 * cases.length);
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
    expect(answers.map((answer) => answer.status)).toEqual([400, 404, 404]);
    expect(answers[0]!.text).toContain('dropped');
    for (const answer of answers) expect(shown(answer.text, key)).toEqual([]);
  });

  test('the proxy recording the fake refuses an exchange whose request holds a key, and writes no part of it, state errors included', async () => {
    const key = KEYS.openai;
    const upstream = closing(await new FakeProvider().listen({ port: 0 }));
    const tape = `${dir}/state.jsonl`;
    const proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => {} });
    const sent = stateErrors(key).filter((entry) => entry.path === '/v1/responses');
    for (const { body, status } of sent) {
      const response = await fetch(`${proxy.baseUrls.openai}/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(status);
      expect(shown(await response.text(), key)).toEqual([]);
    }
    const summary = await proxy.close();
    expect(summary.refused).toBe(sent.length);
    expect(loadTape(tape).exchanges).toHaveLength(0);
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
