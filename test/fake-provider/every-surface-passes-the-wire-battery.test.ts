import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { fromTape, inProcess, overHttp, throughProxy } from '../support/wire-conformance-surfaces.js';
import { orderedCases, runWireBattery, scriptFor, WIRE_APIS_UNDER_TEST, type BatteryCounts, type WireSurface } from '../support/wire-conformance.js';
import { tempDir } from '../support/temp-dir.js';

// One battery per wire API (test/support/wire-conformance.ts), run over every surface that claims
// the API: the fake in process and over HTTP, the proxy recording the fake, and the tape it wrote
// replayed by FakeProvider.fromTape and by the proxy. Each surface gets the same cases in the same
// order, so the tape holds exactly what the replaying surfaces are asked.

const SURFACES = ['fake.fetch', 'fake.listen()', 'proxy recording the fake', 'FakeProvider.fromTape', 'proxy replaying the tape'] as const;

describe.each(WIRE_APIS_UNDER_TEST.map((api) => [api.api, api] as const))('%s passes the wire battery', (_name, api) => {
  const dir = tempDir({ scope: 'file' });
  const tape = () => `${dir}/${api.api}.jsonl`;
  const counted: Partial<Record<(typeof SURFACES)[number], BatteryCounts>> = {};

  async function run(name: (typeof SURFACES)[number], open: () => Promise<WireSurface>): Promise<void> {
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
      await run('proxy recording the fake', () => throughProxy('proxy recording the fake', tape(), api, { mode: 'record', upstream: upstream.server.url }));
    } finally {
      await upstream.close();
    }
  });

  test('from the tape, by FakeProvider.fromTape', () => run('FakeProvider.fromTape', async () => fromTape(tape(), api)));

  test('from the tape, by the proxy in replay mode', () =>
    run('proxy replaying the tape', () => throughProxy('proxy replaying the tape', tape(), api, { mode: 'replay' })));

  // A battery that checked nothing is a failure: every surface ran every case and checked its bytes.
  test('every surface checked every case, and the same number of bodies, events and clients', () => {
    const cases = orderedCases(api).length;
    expect(Object.keys(counted)).toEqual([...SURFACES]);
    const first = counted['fake.fetch']!;
    expect(first.cases).toBe(cases);
    expect(first.bodies + first.grammars).toBe(cases);
    expect(first.clients).toBeGreaterThanOrEqual(cases);
    if (api.grammar !== undefined) expect(first.events).toBeGreaterThan(first.grammars);
    for (const name of SURFACES) expect(counted[name], name).toEqual(first);
  });
});
