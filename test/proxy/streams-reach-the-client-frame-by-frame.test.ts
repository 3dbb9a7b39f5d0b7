import { afterEach, describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { sample, sseFrames, startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const chatRequest = (stream: boolean) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer fake-key' },
  body: JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content: 'Count to three' }] }),
});

async function readAll(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

describe('streamed responses', () => {
  const dir = tempDir();
  let standIn: StandInUpstream | undefined;
  let proxy: RunningProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    await standIn?.close();
    proxy = undefined;
    standIn = undefined;
  });

  test('reach the client frame by frame while recording: the upstream holds frame 2 back until the client has read frame 1', async () => {
    standIn = await startStandInUpstream();
    let clientSawFirstFrame!: () => void;
    const firstFrameSeen = new Promise<void>((resolve) => {
      clientSawFirstFrame = resolve;
    });
    // If the proxy buffered the stream, this would never resolve and the test would time out.
    standIn.beforeFrame = (index) => (index === 1 ? firstFrameSeen : undefined);
    proxy = await startProxy({ tape: `${dir}/frames.jsonl`, mode: 'record', allowRecordInCi: true, upstreams: { openai: standIn.url } });

    const response = await fetch(`${proxy.baseUrls.openai}/chat/completions`, chatRequest(true));
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString('utf8')).toBe(sseFrames('openai/chat-stream-text.sse')[0]);
    clientSawFirstFrame();
    const rest: Uint8Array[] = [];
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest.push(chunk.value);
    expect(Buffer.concat([first.value!, ...rest]).equals(sample('openai/chat-stream-text.sse'))).toBe(true);
    await proxy.close();

    const { exchanges } = loadTape(`${dir}/frames.jsonl`);
    expect(exchanges).toHaveLength(1);
    const { exchange } = exchanges[0]!;
    const frames = exchange.response.stream!.frames;
    expect(exchange.response.stream!.format).toBe('sse');
    expect(frames.map((frame) => ('text' in frame ? frame.text : ''))).toEqual(sseFrames('openai/chat-stream-text.sse'));
    expect(frames.every((frame, index) => index === 0 || frame.atMs >= frames[index - 1]!.atMs)).toBe(true);
  });

  test.each(['instant', 'recorded'] as const)('replay byte-identically at %s pace', async (pace) => {
    const tape = `${dir}/pace.jsonl`;
    standIn = await startStandInUpstream();
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: standIn.url } });
    await readAll(await fetch(`${proxy.baseUrls.openai}/chat/completions`, chatRequest(true)));
    await readAll(await fetch(`${proxy.baseUrls.openai}/chat/completions`, chatRequest(false)));
    await proxy.close();
    await standIn.close();

    proxy = await startProxy({ tape, pace });
    const streamed = await fetch(`${proxy.baseUrls.openai}/chat/completions`, chatRequest(true));
    expect(streamed.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect((await readAll(streamed)).equals(sample('openai/chat-stream-text.sse'))).toBe(true);
    const plain = await fetch(`${proxy.baseUrls.openai}/chat/completions`, chatRequest(false));
    expect(await plain.json()).toEqual(JSON.parse(sample('openai/chat-completion.json').toString('utf8')));
    expect((await proxy.close()).hits).toBe(2);
  });
});
