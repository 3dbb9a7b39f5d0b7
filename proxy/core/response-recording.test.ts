import { describe, expect, test } from 'vitest';
import { prepareResponse } from '../../lookup/internal.js';
import { serializeLine, type Exchange, type RecordedResponse } from '../../recordings/internal.js';
import { chunkMessage, converseMessage, converseStream } from '../../test/support/event-stream-messages.js';
import { ResponseRecording } from './response-recording.js';

// What the recorder keeps of `chunks` arriving 1 ms apart, written as a tape line and read back.
function recordAndReload(chunks: Buffer[], headers: Record<string, string>): RecordedResponse {
  let now = 0;
  const recording = new ResponseRecording(() => now, 1024 * 1024);
  recording.start(200, headers);
  for (const chunk of chunks) {
    now++;
    recording.data(chunk);
  }
  const response = recording.finish();
  const exchange: Exchange = {
    key: 'a'.repeat(64),
    ordinal: 0,
    upstream: 'aws',
    source: 'live',
    request: { method: 'POST', path: '/model/m/converse-stream', query: [], headers: {}, bodySha256: 'b'.repeat(64) },
    response,
  };
  return (JSON.parse(serializeLine(exchange)) as Exchange).response;
}

// Every way an upstream may cut a stream into chunks: whole messages, a byte at a time, odd sizes.
function chunkings(bytes: Buffer): Array<[string, Buffer[]]> {
  const pieces = (size: number): Buffer[] =>
    Array.from({ length: Math.ceil(bytes.length / size) }, (_, index) => bytes.subarray(index * size, (index + 1) * size));
  return [
    ['in one chunk', [bytes]],
    ['a byte at a time', pieces(1)],
    ['in 7-byte chunks', pieces(7)],
    ['in 100-byte chunks', pieces(100)],
  ];
}

const EVENTSTREAM = { 'content-type': 'application/vnd.amazon.eventstream', 'transfer-encoding': 'chunked' };

describe('an AWS event stream recorded and served', () => {
  test('serves the exact bytes it received, however they were chunked, with each message readable on the tape', () => {
    const bytes = Buffer.concat(converseStream('Hello from Bedrock'));
    let checked = 0;
    for (const [how, chunks] of chunkings(bytes)) {
      const recorded = recordAndReload(chunks, EVENTSTREAM);
      expect(recorded.stream?.format, how).toBe('eventstream');
      expect(
        recorded.stream!.frames.map((frame) => ('event' in frame ? frame.event.headers[':event-type'] : 'not readable')),
        how,
      ).toEqual(['messageStart', 'contentBlockDelta', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata']);
      const prepared = prepareResponse(recorded);
      expect(prepared.body.equals(bytes), how).toBe(true);
      expect(prepared.frames).toHaveLength(6);
      checked++;
    }
    expect(checked).toBe(4);
  });

  test('serves a stream with a content-length, a bad CRC, a chunk and a cut-off end byte for byte', () => {
    const bad = converseMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'x' } });
    bad[20]! ^= 0x01;
    const bytes = Buffer.concat([
      chunkMessage({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      bad,
      converseMessage('messageStop', { stopReason: 'end_turn' }).subarray(0, 25),
    ]);
    const recorded = recordAndReload(chunkings(bytes)[2]![1], { 'content-type': 'application/vnd.amazon.eventstream', 'content-length': String(bytes.length) });
    expect(recorded.stream!.frames.map((frame) => Object.keys(frame).sort())).toEqual([
      ['atMs', 'event'],
      ['atMs', 'base64'],
      ['atMs', 'base64'],
    ]);
    expect(recorded.stream!.frames[0]).toMatchObject({ event: { bytes: { json: { delta: { text: 'Hi' } } } } });
    expect(prepareResponse(recorded).body.equals(bytes)).toBe(true);
  });

  test('records the same tape line for the same bytes', () => {
    const bytes = Buffer.concat(converseStream());
    const lines = chunkings(bytes).map(([, chunks]) =>
      JSON.stringify(recordAndReload(chunks, EVENTSTREAM).stream!.frames.map((frame) => ({ ...frame, atMs: 0 }))),
    );
    expect(new Set(lines).size).toBe(1);
  });
});
