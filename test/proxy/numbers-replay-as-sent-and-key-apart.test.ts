import { describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { closeAfterEach } from '../support/close-after-each.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const NUMBERS = ['1e400', '-0', '1.0', '123456789012345678901234567890', '-1E-400', '9007199254740993', '0.10000000000000000001'];

describe('numbers JSON.parse would change', () => {
  const dir = tempDir();
  const closing = closeAfterEach();

  test('replay byte for byte in the response that carried them, and each request keys apart from its neighbour', async () => {
    // The stand-in echoes the number it was sent inside an answer written by hand.
    const upstream = await startStandInUpstream((request) => ({
      body: `{"id":"chatcmpl-n","usage":{"n":${/"n":([^,}]+)/.exec(request.body)![1]}},"score": 1.0}`,
    }));
    closing(upstream);
    const tape = `${dir}/numbers.jsonl`;
    const ask = async (proxy: RunningProxy, number: string) => {
      const response = await fetch(`${proxy.baseUrls.openai}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"model":"gpt-4o","n":${number}}`,
      });
      return { status: response.status, text: await response.text() };
    };
    const recorder = await startProxy({ tape, mode: 'record', allowRecordInCi: true, log: () => undefined, upstreams: { openai: upstream.url } });
    const live = [];
    for (const number of NUMBERS) live.push(await ask(recorder, number));
    expect((await recorder.close()).recorded).toBe(NUMBERS.length);
    const keys = new Set(loadTape(tape).exchanges.map((entry) => entry.exchange.key));
    // 1.0 and the others parse to values their neighbours' do not share; only spellings of one value may share a key.
    expect(keys.size).toBe(NUMBERS.length);

    const replayer = await startProxy({ tape, mode: 'replay', log: () => undefined });
    closing(replayer);
    for (const [index, number] of NUMBERS.entries()) {
      const replayed = await ask(replayer, number);
      expect(replayed.status).toBe(200);
      expect(replayed.text).toBe(live[index]!.text);
      expect(replayed.text).toBe(`{"id":"chatcmpl-n","usage":{"n":${number}},"score": 1.0}`);
    }
    // A neighbouring value misses instead of being answered as if it were the same.
    for (const neighbour of ['1e401', '0', '123456789012345678901234567891']) expect((await ask(replayer, neighbour)).status).toBe(400);
    expect(replayer.summary().hits).toBe(NUMBERS.length);
  });
});
