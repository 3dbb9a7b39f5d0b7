import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { FakeProvider, WIRE_APIS } from 'modeltape/fake-provider';
import type { ProxySummary } from 'modeltape/proxy';
import { WIRE_APIS_UNDER_TEST } from '../support/wire-battery/apis.js';
import { fromTape, inProcess, overHttp, throughProxy } from '../support/wire-conformance-surfaces.js';
import { orderedCases, runWireBattery, scriptFor, type BatteryCounts, type DropCounts, type WireSurface } from '../support/wire-conformance.js';
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
  expect(WIRE_APIS_UNDER_TEST.map((api) => api.api).sort()).toEqual(WIRE_APIS.filter((api) => !outside.has(api)).sort());
});

describe.each(WIRE_APIS_UNDER_TEST.map((api) => [api.api, api] as const))('%s passes the wire battery', (_name, api) => {
  const dir = tempDir({ scope: 'file' });
  const tape = () => `${dir}/${api.api}.jsonl`;
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
    // Validated only where the provider publishes a spec; then every body and event was, but
    // for the bodies it has no schema for, which were checked by hand.
    expect(first.handChecked).toBe(all.filter((testCase) => testCase.bodyShape !== undefined).length);
    expect(first.bodies).toBe(api.spec === undefined ? 0 : first.answers - first.handChecked);
    expect(first.events).toBe(api.spec === undefined ? 0 : first.frames);
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
  });
});
