import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { FakeProvider, WIRE_APIS } from 'modeltape/fake-provider';
import type { ProxySummary } from 'modeltape/proxy';
import { WIRE_APIS_UNDER_TEST } from '../support/wire-battery/apis.js';
import { azureOffSpec, chatAnnotations, responsesAnnotations } from '../support/wire-battery/azure.js';
import { fromTape, inProcess, overHttp, throughProxy } from '../support/wire-conformance-surfaces.js';
import { entryName, orderedCases, runWireBattery, scriptFor, type BatteryCounts, type DropCounts, type WireSurface } from '../support/wire-conformance.js';
import { tempDir } from '../support/temp-dir.js';

// One battery per wire API (test/support/wire-conformance.ts, the entries in
// test/support/wire-battery/), run over every surface that claims the API: the fake in process and
// over HTTP, the proxy recording the fake, and the tape it wrote replayed by FakeProvider.fromTape
// and by the proxy. Each surface gets the same cases in the same order, so the tape holds exactly
// what the replaying surfaces are asked.

const SURFACES = ['fake.fetch', 'fake.listen()', 'proxy recording the fake', 'FakeProvider.fromTape', 'proxy replaying the tape'] as const;
type SurfaceName = (typeof SURFACES)[number];

test('the battery has an entry for every wire API the FakeProvider answers, once', () => {
  // MCP calls are the FakeMcpServer's, tested through the official MCP client (the-fake-mcp-server-answers-the-official-client);
  // Realtime sessions are WebSocket events, not HTTP requests, tested through the official client
  // (realtime-sessions-answer-the-openai-client-from-the-script, and through the proxy).
  const outside = new Set(['mcp', 'openai-realtime']);
  const own = WIRE_APIS_UNDER_TEST.filter((api) => api.upstream !== 'azure' && api.upstream !== 'vertex');
  expect(own.map((api) => api.api).sort()).toEqual(WIRE_APIS.filter((api) => !outside.has(api)).sort());
  // Azure OpenAI and Vertex AI serve other providers' APIs at routes of their own: each is an entry
  // of its own (Azure's v1 routes serve every OpenAI API the fake answers; Vertex AI, Gemini's
  // turns and count and Anthropic's).
  const platforms = WIRE_APIS_UNDER_TEST.filter((api) => !own.includes(api)).map(entryName);
  expect(platforms).toEqual([
    'openai-chat on azure',
    'openai-responses on azure',
    'openai-embeddings on azure',
    'openai-models on azure',
    'openai-responses-stored on azure',
    'openai-conversations on azure',
    'gemini-generate on vertex',
    'gemini-count-tokens on vertex',
    'anthropic-messages on vertex',
    'anthropic-count-tokens on vertex',
  ]);
});

// What the battery checks by hand must hold for what Azure really sends (test/fixtures/azure/README.md), and fail when it is broken.
test("the battery's hand checks of Azure's additions pass Azure's captured samples and fail them tampered", () => {
  const sample = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/azure/${name}`, import.meta.url), 'utf8')) as Record<string, any>;
  const completion = sample('chat-completion-annotations.json');
  const response = sample('responses-text.json');
  const blocked = sample('error-400-content-filter.json');
  const limited = sample('error-429.json');
  expect(chatAnnotations(completion, 'body')).toEqual([]);
  expect(responsesAnnotations(response, 'body')).toEqual([]);
  expect(azureOffSpec(blocked, 'error')).toEqual([]);
  expect(azureOffSpec(limited, 'error')).toEqual([]);

  expect(chatAnnotations({ ...completion, prompt_filter_results: undefined }, 'body')).toEqual([
    expect.stringMatching(/^\.prompt_filter_results: expected the prompt's one entry/),
  ]);
  const unfiltered = { ...completion, choices: [{ ...completion.choices[0], finish_reason: 'content_filter' }] };
  expect(chatAnnotations(unfiltered, 'body')).toEqual(['.choices[0].content_filter_results: a filtered answer names no category that filtered it']);
  const ungraded = structuredClone(completion);
  delete ungraded.choices[0].content_filter_results.hate.severity;
  expect(chatAnnotations(ungraded, 'body')).toEqual(['.choices[0].content_filter_results.hate.severity: expected one of safe, low, medium, high']);
  expect(responsesAnnotations({ ...response, content_filters: null }, 'body')).toEqual([
    expect.stringMatching(/^\.content_filters: expected the prompt's and the completion's/),
  ]);
  expect(responsesAnnotations({ ...response, incomplete_details: { reason: 'content_filter' } }, 'body')).toEqual([
    '.content_filters[1].blocked: expected true',
    '.content_filters[1].content_filter_results: a filtered answer names no category that filtered it',
  ]);
  expect(azureOffSpec({ error: { ...blocked.error, type: 'invalid_request_error' } }, 'error')).toEqual(['.error.type: expected null']);
  expect(azureOffSpec({ error: { ...limited.error, code: 429 } }, 'error')).toEqual(['.error.code: expected the status as a string, such as "429"']);
});

describe.each(WIRE_APIS_UNDER_TEST.map((api) => [entryName(api), api] as const))('%s passes the wire battery', (name, api) => {
  const dir = tempDir({ scope: 'file' });
  const tape = () => `${dir}/${name.replaceAll(' ', '-')}.jsonl`;
  const counted: Partial<Record<SurfaceName, BatteryCounts>> = {};
  let recordingSummary: ProxySummary | undefined;

  async function run(name: SurfaceName, open: () => Promise<WireSurface>): Promise<void> {
    const surface = await open();
    try {
      counted[name] = await runWireBattery(api, surface);
    } finally {
      await surface.close();
    }
  }

  test('over fake.fetch', () => run('fake.fetch', async () => inProcess(scriptFor(api, new FakeProvider()), api)));

  test('over fake.listen()', () => run('fake.listen()', () => overHttp(scriptFor(api, new FakeProvider()), api)));

  // The recording is itself a surface, and it writes the tape the next two replay.
  test('through the proxy recording the fake', async () => {
    const upstream = await overHttp(scriptFor(api, new FakeProvider()), api);
    try {
      await run('proxy recording the fake', () =>
        throughProxy('proxy recording the fake', tape(), api, {
          mode: 'record',
          upstream: upstream.server.url,
          onClose: (summary) => (recordingSummary = summary),
        }),
      );
    } finally {
      await upstream.close();
    }
  });

  test('from the tape, by FakeProvider.fromTape', () => run('FakeProvider.fromTape', async () => fromTape(tape(), api)));

  test('from the tape, by the proxy in replay mode', () =>
    run('proxy replaying the tape', () => throughProxy('proxy replaying the tape', tape(), api, { mode: 'replay' })));

  // A battery that checked nothing is a failure: every surface ran every case and checked its bytes.
  test('every surface checked every case, and the same number of bodies, events and clients', () => {
    const all = orderedCases(api);
    const dropped = all.filter((testCase) => testCase.outcome === 'dropped');
    const droppedPlain = dropped.filter((testCase) => !testCase.shape.stream).length;
    const cases = all.length - dropped.length;
    expect(cases, 'an API with no cases checks nothing').toBeGreaterThan(0);
    expect(Object.keys(counted)).toEqual([...SURFACES]);
    const { drops: _drops, ...first } = counted['fake.fetch']!;
    expect(first.cases).toBe(cases);
    // Every case's answer was read: a JSON body, a stream checked against the grammar, or a 200 with no body.
    expect(first.answers + first.grammars + first.empties).toBe(cases);
    expect(first.empties).toBe(all.filter((testCase) => testCase.outcome === 'empty').length);
    // Answer bodies the spec has no schema for were checked by the case's own shape.
    expect(first.handChecked).toBe(all.filter((testCase) => testCase.bodyShape !== undefined).length);
    // What the spec does not type (Azure's own errors, its chat streams' first chunk) was checked by hand instead.
    if (api.offSpec === undefined) expect(first.offSpec).toBe(0);
    // Validated only where the provider publishes a spec; then every body and event was, but for those checked by hand.
    expect(first.bodies + first.events).toBe(api.spec === undefined ? 0 : first.answers - first.handChecked + first.frames - first.offSpec);
    if (api.spec !== undefined && api.grammar !== undefined) expect(first.events, 'stream events validated').toBeGreaterThan(0);
    // Every answer and every stream carried the platform's annotations, where it adds them.
    const answered = all.filter((testCase) => testCase.outcome === 'answer' || testCase.outcome === 'stream').length;
    if (api.annotations === undefined) expect(first.annotated).toBe(0);
    else expect(first.annotated, 'bodies and events whose annotations were checked').toBeGreaterThanOrEqual(answered);
    expect(first.clients).toBeGreaterThanOrEqual(cases);
    if (api.grammar !== undefined) expect(first.frames).toBeGreaterThan(first.grammars);
    for (const name of SURFACES) {
      const { drops: _ignored, ...checked } = counted[name]!;
      expect(checked, name).toEqual(first);
    }

    // Dropped connections are where the surfaces differ, each for its reason (DropHandling).
    const expectedDrops: Record<SurfaceName, Omit<DropCounts, 'clients'>> = {
      // The fake cuts the connection itself: no response, or a stream that stops short.
      'fake.fetch': { asked: dropped.length, skipped: 0, cut: dropped.length, badGateway: 0 },
      'fake.listen()': { asked: dropped.length, skipped: 0, cut: dropped.length, badGateway: 0 },
      // The proxy answers its own 502 for an upstream that sent nothing, and cuts its client's
      // connection when the upstream's stream breaks after the headers went through.
      'proxy recording the fake': { asked: dropped.length, skipped: 0, cut: dropped.length - droppedPlain, badGateway: droppedPlain },
      // Nothing of a dropped exchange is recorded, so a replayed tape has none to ask.
      'FakeProvider.fromTape': { asked: 0, skipped: dropped.length, cut: 0, badGateway: 0 },
      'proxy replaying the tape': { asked: 0, skipped: dropped.length, cut: 0, badGateway: 0 },
    };
    for (const name of SURFACES) {
      const { clients, ...drops } = counted[name]!.drops;
      expect(drops, `${name}: dropped connections`).toEqual(expectedDrops[name]);
      expect(clients, `${name}: clients reading dropped connections`).toBeGreaterThanOrEqual(drops.asked);
    }
    // The recording proxy counted each drop as an upstream error and recorded every other case.
    expect(recordingSummary?.upstreamErrors, 'upstream errors while recording').toBe(dropped.length);
    expect(recordingSummary?.recorded, 'exchanges recorded').toBe(cases);
    const exchanges = readFileSync(tape(), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"key"'));
    expect(exchanges.length, 'exchanges on the tape').toBe(cases);
    // The fake's marker reached the tape: every exchange says it came from the fake.
    expect(exchanges.filter((line) => (JSON.parse(line) as { source?: unknown }).source === 'fake').length, 'exchanges labelled source "fake"').toBe(cases);
  });
});
