import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTape, serializeLine, type Exchange } from 'modeltape/recordings';
import { startProxy } from 'modeltape/proxy';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runMain } from '../support/cli.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { RECHECK_KEYS, chatCompletion } from '../support/recheck-tapes.js';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// Provenance: each recording keeps the client as its request announced itself and the model its
// answer names, read once at record time, never keyed; report and recheck show them. A user agent
// that holds a key never reaches the tape or any output.

const SDK_HEADERS = { 'user-agent': 'OpenAI/JS 4.67.3', 'x-stainless-lang': 'js', 'x-stainless-package-version': '4.67.3' };
const LEAKED = fakeOpenAiKey('INUSERAGENTINUSERAGENTINUSERAG0000');

describe('provenance in the tape', () => {
  const dir = tempDir({ scope: 'file' });
  const tape = join(dir, 'tapes', 'hello.jsonl');
  const closers: Array<() => Promise<unknown>> = [];
  let upstream: StandInUpstream;

  beforeAll(async () => {
    upstream = await startStandInUpstream(() => ({ body: chatCompletion('Hello.') }));
    closers.push(() => upstream.close());
    const proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => {} });
    try {
      for (const [content, headers] of [
        ['Say hello', SDK_HEADERS],
        ['Say hi', { 'user-agent': `my-script/1.0 (${LEAKED})` }],
      ] as const) {
        const response = await fetch(`${proxy.url}/openai/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${RECHECK_KEYS.openai}`, ...headers },
          body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] }),
        });
        await response.arrayBuffer();
      }
    } finally {
      await proxy.close();
    }
  }, 30_000);
  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
  });

  test('a recording keeps the client headers and the answering model, out of the key; a user agent holding a key is left out', () => {
    const lines = readFileSync(tape, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[0]!).schemaVersion).toBe(4);
    const [sdk, leaky] = lines.slice(1).map((line) => JSON.parse(line) as Exchange);
    expect(sdk!.request.client).toEqual(SDK_HEADERS);
    expect(sdk!.response.answeredModel).toBe('gpt-4o-2024-08-06');
    expect(leaky!.request.client).toBeUndefined();
    expect(leaky!.response.answeredModel).toBe('gpt-4o-2024-08-06');
    expect(readFileSync(tape, 'utf8')).not.toContain(LEAKED);
    // Not keyed: the same request from another client has the same key.
    expect(sdk!.key).not.toBe(leaky!.key);
    const { request } = sdk!;
    expect(loadTape(tape).exchanges).toHaveLength(2);
    expect(request.headers).toEqual({ 'content-type': 'application/json' });
  });

  test('modeltape report lists the clients and the models that answered', async () => {
    const result = await runMain(['report', 'tapes/hello.jsonl'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Answered by \(the model each answer names\)\n {2}gpt-4o-2024-08-06 +2/);
    expect(result.stdout).toMatch(/Clients \(as their requests announced them\)\n {2}OpenAI\/JS 4\.67\.3 +1/);
    const json = await runMain(['report', 'tapes/hello.jsonl', '--json'], { cwd: dir });
    const report = JSON.parse(json.stdout) as { coverage: { clients: unknown[]; answeredModels: unknown[] } };
    expect(report.coverage.clients).toEqual([{ name: 'OpenAI/JS 4.67.3', count: 1, where: ['tapes/hello.jsonl:2'] }]);
    expect(report.coverage.answeredModels).toEqual([{ name: 'gpt-4o-2024-08-06', count: 2, where: ['tapes/hello.jsonl:2', 'tapes/hello.jsonl:3'] }]);
    for (const output of [result.stdout, result.stderr, json.stdout]) expect(output).not.toContain(LEAKED);
  });

  test('an older tape without these fields still loads and reports; recheck shows the recorded model then → now', async () => {
    const lines = readFileSync(tape, 'utf8').trimEnd().split('\n');
    const old = lines.slice(1).map((line) => {
      const exchange = JSON.parse(line) as Exchange;
      delete exchange.request.client;
      delete exchange.response.answeredModel;
      return serializeLine(exchange);
    });
    writeFileSync(join(dir, 'tapes', 'old.jsonl'), `${lines[0]!.replace('"schemaVersion":4', '"schemaVersion":3')}\n${old.join('')}`);
    expect(loadTape(join(dir, 'tapes', 'old.jsonl')).exchanges).toHaveLength(2);
    const report = await runMain(['report', 'tapes/old.jsonl'], { cwd: dir });
    expect(report.code).toBe(0);
    expect(report.stdout).not.toContain('Clients');
    // Without the field the answer's own model is shown (gpt-4o-2024-08-06 both then and now);
    // with it, the recorded field wins: a hand-set one shows as the model then.
    const exchanges = lines.slice(1).map((line) => JSON.parse(line) as Exchange);
    exchanges[0]!.response.answeredModel = 'gpt-4o-2024-05-13';
    writeFileSync(join(dir, 'tapes', 'moved.jsonl'), `${lines[0]}\n${exchanges.map((exchange) => serializeLine(exchange)).join('')}`);
    const rechecked = await runMain(['recheck', 'tapes/moved.jsonl', '--upstream', `openai=${upstream.url}`], {
      cwd: dir,
      env: { OPENAI_API_KEY: RECHECK_KEYS.openai },
    });
    expect(rechecked.code).toBe(0);
    expect(rechecked.stdout).toContain('modeltape recheck: 2 checked: 2 identical');
    const json = await runMain(['recheck', 'tapes/moved.jsonl', '--upstream', `openai=${upstream.url}`, '--json', '-'], {
      cwd: dir,
      env: { OPENAI_API_KEY: RECHECK_KEYS.openai },
    });
    const models = (JSON.parse(json.stdout) as { checked: Array<{ model: unknown }> }).checked.map((entry) => entry.model);
    expect(models).toEqual([
      { requested: 'gpt-4o', then: 'gpt-4o-2024-05-13', now: 'gpt-4o-2024-08-06' },
      { requested: 'gpt-4o', then: 'gpt-4o-2024-08-06', now: 'gpt-4o-2024-08-06' },
    ]);
  }, 30_000);
});
