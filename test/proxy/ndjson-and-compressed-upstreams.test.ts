import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { modeltapeErrorBody } from '../../providers/internal.js';
import { loadTape } from 'modeltape/recordings';
import { tempDir } from '../support/temp-dir.js';

// Ollama's native /api/chat streams NDJSON, one JSON object per line.
const NDJSON_LINES = [
  '{"model":"llama3.2","created_at":"2026-11-30T00:00:00Z","message":{"role":"assistant","content":"The"},"done":false}\n',
  '{"model":"llama3.2","created_at":"2026-11-30T00:00:00Z","message":{"role":"assistant","content":" sky"},"done":false}\n',
  '{"model":"llama3.2","created_at":"2026-11-30T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":2}\n',
];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('other upstream shapes', () => {
  const dir = tempDir();
  let proxy: RunningProxy | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await proxy?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    proxy = undefined;
    server = undefined;
  });

  test('an NDJSON stream is recorded line by line and replayed byte-identically', async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      // Lines split across writes, as a real server's buffers split them.
      const text = NDJSON_LINES.join('');
      response.write(text.slice(0, 50));
      response.write(text.slice(50, 190));
      response.end(text.slice(190));
    });
    const url = await listen(server);
    const tape = `${dir}/ollama.jsonl`;
    const body = JSON.stringify({ model: 'llama3.2', messages: [{ role: 'user', content: 'Why is the sky blue?' }] });
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { ollama: url } });
    expect(await (await fetch(`${proxy.url}/ollama/api/chat`, { method: 'POST', body })).text()).toBe(NDJSON_LINES.join(''));
    await proxy.close();

    const [loaded] = loadTape(tape).exchanges;
    expect(loaded!.exchange.response.stream?.format).toBe('ndjson');
    expect(loaded!.exchange.response.stream?.frames.map((frame) => ('text' in frame ? frame.text : ''))).toEqual(NDJSON_LINES);

    proxy = await startProxy({ tape });
    const replayed = await fetch(`${proxy.url}/ollama/api/chat`, { method: 'POST', body });
    expect(replayed.headers.get('content-type')).toBe('application/x-ndjson');
    expect(await replayed.text()).toBe(NDJSON_LINES.join(''));
  });

  test('a compressed upstream response reaches the client as sent and the tape holds it decoded', async () => {
    const payload = { id: 'chatcmpl-gz', object: 'chat.completion', choices: [] };
    server = createServer((_request, response) => {
      // Compresses although the proxy asked for identity, as some servers do.
      const compressed = gzipSync(JSON.stringify(payload));
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': compressed.length });
      response.end(compressed);
    });
    const url = await listen(server);
    const tape = `${dir}/gzip.jsonl`;
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: url } });
    const live = await fetch(`${proxy.baseUrls.openai}/chat/completions`, { method: 'POST', body: '{}' });
    expect(await live.json()).toEqual(payload);
    await proxy.close();
    const [loaded] = loadTape(tape).exchanges;
    // Decoded, and fingerprinted as the bytes the client received (compact JSON here).
    expect(loaded!.exchange.response.body).toEqual({ json: payload, sha256: createHash('sha256').update(JSON.stringify(payload)).digest('hex') });
    expect(loaded!.exchange.response.headers['content-encoding']).toBeUndefined();

    proxy = await startProxy({ tape });
    expect(await (await fetch(`${proxy.baseUrls.openai}/chat/completions`, { method: 'POST', body: '{}' })).json()).toEqual(payload);
  });

  test("a miss answers in each provider's own error shape", () => {
    expect(modeltapeErrorBody('openai', 400, 'modeltape_replay_miss', 'm')).toEqual({
      error: { message: 'm', type: 'modeltape_replay_miss', param: null, code: 'modeltape_replay_miss' },
    });
    expect(modeltapeErrorBody('anthropic', 400, 'modeltape_replay_miss', 'm')).toMatchObject({
      type: 'error',
      error: { type: 'modeltape_replay_miss', message: 'm' },
    });
    expect(modeltapeErrorBody('gemini', 400, 'modeltape_replay_miss', 'm')).toEqual({
      error: { code: 400, message: 'm', status: 'MODELTAPE_REPLAY_MISS' },
    });
    expect(modeltapeErrorBody('ollama', 400, 'modeltape_replay_miss', 'm')).toEqual({ error: 'm' });
  });
});
