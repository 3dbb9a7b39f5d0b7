import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape, type Body } from 'modeltape/recordings';
import { sample, startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// OpenAI's real answer (2-space indentation, "\u2014" escaped, a trailing newline), with members
// JavaScript cannot keep as they were written: a number beyond 2^53, integer-like names out of
// numeric order, "\u00e9" escaped, a float written "1.0".
const ANSWER = Buffer.from(
  sample('openai/chat-completion.json')
    .toString('utf8')
    .replace(
      '  "created": 1770933883,\n',
      '  "created": 1770933883,\n  "seed": 9007199254740993,\n  "scores": {\n    "10": 1.0,\n    "2": 0.25,\n    "a": "caf\\u00e9"\n  },\n',
    ),
  'utf8',
);

const REQUEST = { model: 'gpt-4.1-nano', messages: [{ role: 'user' as const, content: 'Invent a holiday' }] };

describe('a JSON answer', () => {
  const dir = tempDir();
  let standIn: StandInUpstream | undefined;
  let proxy: RunningProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    await standIn?.close();
    proxy = standIn = undefined;
  });

  test('replays through the proxy and FakeProvider.fromTape as the exact bytes the client saw while recording, from a tape that still reads as JSON', async () => {
    expect(ANSWER.toString('utf8')).toContain('"seed": 9007199254740993');
    expect(ANSWER.toString('utf8')).toMatch(/"a": "caf\\u00e9"\n {2}\},\n {2}"model"/);
    expect(ANSWER.toString('utf8').endsWith('}\n')).toBe(true);

    const tape = `${dir}/holiday.jsonl`;
    standIn = await startStandInUpstream(() => ({ body: ANSWER, headers: { 'x-request-id': 'req_standin_0001' } }));
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: standIn.url } });
    const live = await new OpenAI({ apiKey: 'fake-key', baseURL: proxy.baseUrls.openai, maxRetries: 0 }).chat.completions.create(REQUEST).asResponse();
    expect(Buffer.from(await live.arrayBuffer()).equals(ANSWER)).toBe(true);
    await proxy.close();
    await standIn.close();

    // The tape: the answer is there as JSON, with what gives its bytes back beside it.
    const [loaded] = loadTape(tape).exchanges;
    const body = loaded!.exchange.response.body as Extract<Body, { json: unknown }> & { json: { choices: Array<{ message: { content: string } }> } };
    expect(body.json.choices[0]!.message.content).toMatch(/^\*\*Holiday Name:\*\* Galaxy Day/);
    expect(body.sha256).toBe(createHash('sha256').update(ANSWER).digest('hex'));
    expect(body.layout).toEqual({
      indent: '  ',
      ascii: true,
      trailing: '\n',
      keyOrder: { '.scores': ['10', '2', 'a'] },
      literals: { '.seed': '9007199254740993', '.scores["10"]': '1.0' },
    });
    const line = readFileSync(tape, 'utf8').split('\n')[loaded!.line - 1]!;
    expect(line).toContain(
      '"response":{"answeredModel":"gpt-4.1-nano-2025-04-14","body":{"json":{"id":"chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU","object":"chat.completion","created":1770933883,"seed":9007199254740992,',
    );

    // Replay through the proxy, offline, with the official SDK: the same bytes.
    proxy = await startProxy({ tape });
    const replayed = await new OpenAI({ apiKey: 'fake-key', baseURL: proxy.baseUrls.openai, maxRetries: 0 }).chat.completions.create(REQUEST).asResponse();
    expect(Buffer.from(await replayed.arrayBuffer()).equals(ANSWER)).toBe(true);
    expect(replayed.headers.get('content-length')).toBe(String(ANSWER.length));
    expect(await proxy.close()).toMatchObject({ hits: 1, misses: 0, upstreamConnections: 0 });

    // Through the tape fake, in process and over HTTP: the same bytes.
    const inProcess = await new OpenAI({ apiKey: 'fake-key', fetch: FakeProvider.fromTape(tape).fetch, maxRetries: 0 }).chat.completions
      .create(REQUEST)
      .asResponse();
    expect(Buffer.from(await inProcess.arrayBuffer()).equals(ANSWER)).toBe(true);
    const server = await FakeProvider.fromTape(tape).listen();
    try {
      const overHttp = await new OpenAI({ apiKey: 'fake-key', baseURL: server.baseUrls.openai, maxRetries: 0 }).chat.completions.create(REQUEST).asResponse();
      expect(Buffer.from(await overHttp.arrayBuffer()).equals(ANSWER)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
