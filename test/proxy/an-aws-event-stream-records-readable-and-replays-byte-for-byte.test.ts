import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { chunkMessage, converseStream } from '../support/event-stream-messages.js';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// Bedrock Runtime's ConverseStream answer, AWS's binary event stream, chunked in writes that split
// messages (as a real server's buffers split them); InvokeModelWithResponseStream's, whole with a
// content-length.
const CONVERSE = Buffer.concat(converseStream('Hello from a stand-in Bedrock'));
const INVOKE = Buffer.concat([
  chunkMessage({ type: 'message_start', message: { id: 'msg_fake_0', role: 'assistant', content: [] } }),
  chunkMessage({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
  chunkMessage({ type: 'message_stop' }),
]);

describe('an AWS event stream', () => {
  const dir = tempDir();
  let proxy: RunningProxy | undefined;
  let upstream: StandInUpstream | undefined;
  afterEach(async () => {
    await proxy?.close();
    await upstream?.close();
    proxy = undefined;
    upstream = undefined;
  });

  test('records each message readable and replays offline byte for byte', async () => {
    upstream = await startStandInUpstream((request) => {
      const headers = { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'fake-request-0' };
      if (!request.url.includes('converse-stream')) return { headers, body: INVOKE };
      const writes = Array.from({ length: Math.ceil(CONVERSE.length / 37) }, (_, index) => CONVERSE.subarray(index * 37, (index + 1) * 37));
      return { headers, frames: writes };
    });
    const tape = `${dir}/bedrock.jsonl`;
    const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Say hello' }] }] });
    const paths = ['/aws/model/fake.model-v1/converse-stream', '/aws/model/fake.model-v1/invoke-with-response-stream'];
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { aws: upstream.url } });
    const live = await Promise.all(paths.map(async (path) => Buffer.from(await (await fetch(`${proxy!.url}${path}`, { method: 'POST', body })).arrayBuffer())));
    expect(live[0]!.equals(CONVERSE)).toBe(true);
    expect(live[1]!.equals(INVOKE)).toBe(true);
    await proxy.close();
    await upstream.close();
    upstream = undefined;

    const exchanges = loadTape(tape).exchanges.map(({ exchange }) => exchange);
    expect(exchanges).toHaveLength(2);
    const converse = exchanges.find((exchange) => exchange.request.path.endsWith('converse-stream'))!;
    expect(converse.response.stream?.format).toBe('eventstream');
    expect(converse.response.stream!.frames.map((frame) => ('event' in frame ? frame.event.headers[':event-type'] : undefined))).toEqual([
      'messageStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    // The tape line reads as JSON: the event types and the text, not base64.
    const text = readFileSync(tape, 'utf8');
    expect(text).toContain(
      '"headers":{":event-type":"contentBlockDelta",":content-type":"application/json",":message-type":"event"},"json":{"contentBlockIndex":0,"delta":{"text":"Hello from a st"}',
    );
    expect(text).toContain('"bytes":{"json":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}}');
    expect(text).not.toContain('"base64"');

    proxy = await startProxy({ tape });
    for (const [index, path] of paths.entries()) {
      const replayed = await fetch(`${proxy.url}${path}`, { method: 'POST', body });
      expect(replayed.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
      expect(Buffer.from(await replayed.arrayBuffer()).equals(index === 0 ? CONVERSE : INVOKE), path).toBe(true);
    }
  });
});
