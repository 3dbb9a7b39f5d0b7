import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { startProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { assertReplayWasNotBackstopped, Runtime, SqliteJournalStore, sequentialIds, steppingClock, type Agent } from 'modeltape/runtime';
import { closeAfterEach } from '../support/close-after-each.js';
import { parcelAgent, parcelRuntime, parcelTools, scriptParcel } from '../support/parcel-agent.js';
import { tempDir } from '../support/temp-dir.js';

const started = closeAfterEach();
const dir = tempDir();

describe('a run', () => {
  test('speaks Anthropic Messages through fake.fetch: tool_use and tool_result blocks, and replays strictly', async () => {
    const fake = scriptParcel(new FakeProvider());
    const agent: Agent = { ...parcelAgent, name: 'parcel-desk-claude', provider: 'anthropic', model: 'claude-sonnet-4-5' };
    const { runtime, runs } = parcelRuntime({
      fake,
      agents: [agent],
      providers: { anthropic: { api: 'anthropic-messages', fetch: fake.fetch, apiKey: 'fake-key-for-tests' } },
    });
    const outcome = await runtime.run('parcel-desk-claude', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Parcel P-1 is in Lyon; I told the customer.');
    expect(runs.send).toEqual([{ to: 'customer', text: 'Your parcel P-1 is in Lyon.' }]);
    const asked = fake.asked();
    expect(asked.map((turn) => turn.api)).toEqual(['anthropic-messages', 'anthropic-messages', 'anthropic-messages']);
    expect(asked[0]!.system).toBe(parcelAgent.system);
    expect(asked[0]!.tools.map((tool) => tool.name)).toEqual(['lookup_parcel', 'send_message']);
    expect(asked[2]!.exchanges).toMatchObject([{ toolCallId: asked[2]!.exchanges[0]!.toolCallId, name: 'send_message', isError: false }]);
    expect(JSON.parse(asked[2]!.exchanges[0]!.result)).toMatchObject({ sent: true, messageId: 'run-2' });
    const replayed = await runtime.replay(outcome.runId, 'strict');
    expect(replayed.output).toBe(outcome.output);
    expect(fake.calls()).toHaveLength(3);
    assertReplayWasNotBackstopped(replayed, 'anthropic');
  });

  test('with an output schema asks for it in response_format and returns the parsed, checked answer', async () => {
    const fake = new FakeProvider().willAnswer({ parcel: 'P-1', city: 'Lyon' });
    const output = {
      type: 'object',
      properties: { parcel: { type: 'string' }, city: { type: 'string' } },
      required: ['parcel', 'city'],
      additionalProperties: false,
    };
    const agent: Agent = { ...parcelAgent, name: 'parcel-json', tools: [], output };
    const { runtime } = parcelRuntime({ fake, agents: [agent] });
    const outcome = await runtime.run('parcel-json', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toEqual({ parcel: 'P-1', city: 'Lyon' });
    expect(fake.asked()[0]!.responseSchema).toMatchObject({ name: 'output', strict: true, schema: output });
  });

  test('fails, saying why, when the answer does not match the output schema', async () => {
    const fake = new FakeProvider().willSay('Lyon, I think.');
    const agent: Agent = {
      ...parcelAgent,
      name: 'parcel-json',
      tools: [],
      output: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    };
    const { runtime, store } = parcelRuntime({ fake: fake.withoutConstrainedDecoding(), agents: [agent] });
    const outcome = await runtime.run('parcel-json', 'Where is parcel P-1?');
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toEqual({
      code: 'output_schema',
      message: 'Agent "parcel-json" answered with output that does not match its output schema: it is not JSON. Answer: Lyon, I think.',
    });
    expect((await store.getRun(outcome.runId))?.result).toEqual(outcome.error);
  });

  test('fails when the provider answers with an error, and the failure is journaled', async () => {
    const { failures } = await import('modeltape/fake-provider');
    const fake = new FakeProvider().willFail(failures.serverError());
    const { runtime, store } = parcelRuntime({ fake });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    expect(outcome.status).toBe('failed');
    expect(outcome.error?.code).toBe('model_call_failed');
    expect(outcome.error?.message).toContain('answered 500 to POST https://api.openai.com/v1/chat/completions');
    expect((await store.read(outcome.runId)).map((record) => `${record.effectKey} ${record.type}`)).toEqual(['0.0.model start', '0.0.model fail']);
  });

  test.each([
    ['openai-chat', '/v1/chat/completions'],
    ['openai-responses', '/v1/responses'],
  ] as const)(
    'goes over HTTP on %s through the recording proxy to the fake, and the tape then answers a second runtime with the proxy in replay mode',
    async (api, path) => {
      const fake = scriptParcel(new FakeProvider());
      const upstream = started(await fake.listen());
      const tape = `${dir}/runtime-${api}.jsonl`;
      const recorder = started(await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => undefined }));
      const build = (baseUrl: string, store = SqliteJournalStore.memory()): { runtime: Runtime; runs: { lookup: unknown[]; send: unknown[] } } => {
        const runs = { lookup: [], send: [] };
        const runtime = Runtime.build({
          store,
          providers: { openai: { api, baseUrl, apiKey: 'fake-key-for-tests' } },
          agents: [parcelAgent],
          tools: parcelTools(runs),
          clock: steppingClock(),
          ids: sequentialIds('run'),
          owner: 'runtime-a',
        });
        return { runtime, runs };
      };
      const live = build(recorder.baseUrls.openai);
      const first = await live.runtime.run('parcel-desk', 'Where is parcel P-1?');
      expect(first.status).toBe('completed');
      expect(fake.calls()).toHaveLength(3);
      const summary = await recorder.close();
      expect(summary.recorded).toBe(3);
      expect(loadTape(tape).exchanges.map(({ exchange }) => exchange.request.path)).toEqual([path, path, path]);
      // No key on disk.
      expect(JSON.stringify(loadTape(tape))).not.toContain('fake-key-for-tests');

      // Strict replay of the journal touches neither the proxy nor the fake.
      const replayed = await live.runtime.replay(first.runId, 'strict');
      expect(replayed.output).toBe(first.output);

      // A fresh runtime and journal, with the proxy replaying the tape: the same requests, byte for byte, get the same answers.
      const replayer = started(await startProxy({ tape, mode: 'replay', log: () => undefined }));
      const again = build(replayer.baseUrls.openai);
      const second = await again.runtime.run('parcel-desk', 'Where is parcel P-1?');
      expect(second.output).toBe(first.output);
      expect(again.runs.send).toEqual(live.runs.send);
      const replaySummary = await replayer.close();
      expect(replaySummary.hits).toBe(3);
      expect(replaySummary.misses).toBe(0);
      expect(replaySummary.upstreamConnections).toBe(0);
      expect(fake.calls()).toHaveLength(3);
    },
  );
});
