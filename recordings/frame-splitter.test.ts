import { describe, expect, test } from 'vitest';
import { FrameSplitter, streamFormatOf } from './frame-splitter.js';
import { frameBytes } from './frame-bytes.js';
import type { Frame, StreamFormat } from './tape-format.js';
import { chunkMessage, converseStream } from '../test/support/event-stream-messages.js';

function bytesOf(frames: readonly Frame[]): Buffer {
  return Buffer.concat(frames.map(frameBytes));
}

function texts(frames: readonly Frame[]): string[] {
  return frames.map((frame) => {
    if (!('text' in frame)) throw new Error(`expected a text frame, got ${JSON.stringify(frame)}`);
    return frame.text;
  });
}

/** Pushes the chunks at 10, 20, 30… ms and finishes at 1000 ms. */
function split(format: StreamFormat, chunks: ReadonlyArray<Buffer | string>): Frame[] {
  const splitter = new FrameSplitter(format);
  chunks.forEach((chunk, index) => splitter.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk, (index + 1) * 10));
  return splitter.finish(1000);
}

/** Cuts bytes at the given offsets. */
function cut(bytes: Buffer, offsets: number[]): Buffer[] {
  const chunks: Buffer[] = [];
  let start = 0;
  for (const offset of [...offsets, bytes.length]) {
    chunks.push(bytes.subarray(start, offset));
    start = offset;
  }
  return chunks;
}

// A small deterministic generator, so a failing chunking can be reproduced.
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const OPENAI_EVENTS = [
  'data: {"id":"chatcmpl-1","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n',
  'data: {"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"Héllo 👋 — ✓"}}]}\n\n',
  ': keep-alive comment\n\n',
  'data: [DONE]\n\n',
];
const ANTHROPIC_EVENTS = [
  'event: message_start\r\ndata: {"type":"message_start"}\r\n\r\n',
  'event: content_block_delta\r\ndata: {"delta":{"text":"日本語"}}\r\n\r\n',
  'event: message_stop\r\ndata: {"type":"message_stop"}\r\n\r\n',
];
const CR_EVENTS = ['data: one\r\r', 'event: x\rdata: två\r\r', 'data: three\r\r'];

describe('FrameSplitter for SSE', () => {
  test.each([
    ['\\n\\n', OPENAI_EVENTS],
    ['\\r\\n\\r\\n', ANTHROPIC_EVENTS],
  ])('cuts one frame per event separated by %s', (_separator, events) => {
    const frames = split('sse', [events.join('')]);
    expect(texts(frames)).toEqual(events);
    expect(frames.every((frame) => frame.atMs === 10)).toBe(true);
  });

  test('cuts one frame per event separated by \\r\\r', () => {
    const frames = split('sse', [CR_EVENTS.join('')]);
    expect(texts(frames)).toEqual(CR_EVENTS);
  });

  test.each([
    ['\\n\\n', 'data: a\n', '\ndata: b\n\n', ['data: a\n\n', 'data: b\n\n']],
    ['\\r\\n\\r\\n (after the first \\r)', 'data: a\r', '\n\r\ndata: b\r\n\r\n', ['data: a\r\n\r\n', 'data: b\r\n\r\n']],
    ['\\r\\n\\r\\n (after \\r\\n)', 'data: a\r\n', '\r\ndata: b\r\n\r\n', ['data: a\r\n\r\n', 'data: b\r\n\r\n']],
    ['\\r\\n\\r\\n (after \\r\\n\\r)', 'data: a\r\n\r', '\ndata: b\r\n\r\n', ['data: a\r\n\r\n', 'data: b\r\n\r\n']],
    ['\\r\\r', 'data: a\r', '\rdata: b\r\r', ['data: a\r\r', 'data: b\r\r']],
  ])('joins a %s separator split across two chunks', (_separator, first, second, expected) => {
    const frames = split('sse', [first, second]);
    expect(texts(frames)).toEqual(expected);
    expect(frames[0]!.atMs).toBe(20);
  });

  test('includes the \\n of a blank line ending in \\r\\n when it arrives in the next chunk', () => {
    // "data: a\r" ends a line with CR; "\r\n" is the blank line that ends the event.
    const frames = split('sse', ['data: a\r\r', '\ndata: b\r\r\n']);
    expect(texts(frames)).toEqual(['data: a\r\r\n', 'data: b\r\r\n']);
  });

  test('keeps a multi-byte character split across chunks as one character', () => {
    const event = Buffer.from('data: {"content":"👋 é"}\n\n', 'utf8');
    const inside = event.indexOf(Buffer.from('👋', 'utf8')) + 2;
    const frames = split('sse', cut(event, [inside]));
    expect(texts(frames)).toEqual(['data: {"content":"👋 é"}\n\n']);
    expect(frames[0]!.atMs).toBe(20);
  });

  test('stamps each frame with the time of the chunk that completed it', () => {
    const frames = split('sse', ['data: a\n\ndata: b', '\n', '\ndata: c\n\n']);
    expect(frames).toEqual([
      { atMs: 10, text: 'data: a\n\n' },
      { atMs: 30, text: 'data: b\n\n' },
      { atMs: 30, text: 'data: c\n\n' },
    ]);
  });

  test('keeps an unterminated last event as a final frame stamped at finish', () => {
    const frames = split('sse', ['data: a\n\ndata: partial']);
    expect(frames).toEqual([
      { atMs: 10, text: 'data: a\n\n' },
      { atMs: 1000, text: 'data: partial' },
    ]);
  });

  test('gives frames that concatenate to exactly the input, however the input is chunked', () => {
    const streams = [OPENAI_EVENTS.join(''), ANTHROPIC_EVENTS.join(''), CR_EVENTS.join('')].map((text) => Buffer.from(text, 'utf8'));
    const next = random(42);
    let checked = 0;
    for (const bytes of streams) {
      for (let offset = 1; offset < bytes.length; offset++) {
        expect(bytesOf(split('sse', cut(bytes, [offset]))).equals(bytes)).toBe(true);
        checked++;
      }
      for (let round = 0; round < 50; round++) {
        const offsets = [...new Set(Array.from({ length: 1 + Math.floor(next() * 12) }, () => 1 + Math.floor(next() * (bytes.length - 1))))].sort(
          (a, b) => a - b,
        );
        const frames = split('sse', cut(bytes, offsets));
        expect(bytesOf(frames).equals(bytes)).toBe(true);
        expect(frames.every((frame) => 'text' in frame)).toBe(true);
        checked++;
      }
    }
    expect(checked).toBe(streams.reduce((sum, bytes) => sum + bytes.length - 1 + 50, 0));
  });

  test('cuts the same events whatever the chunking, for \\n\\n and \\r\\n\\r\\n streams', () => {
    let checked = 0;
    let expected = 0;
    for (const events of [OPENAI_EVENTS, ANTHROPIC_EVENTS]) {
      const bytes = Buffer.from(events.join(''), 'utf8');
      expected += bytes.length - 1;
      for (let offset = 1; offset < bytes.length; offset++) {
        expect(texts(split('sse', cut(bytes, [offset])))).toEqual(events);
        checked++;
      }
    }
    expect(checked).toBe(expected);
  });

  test('falls back to the raw chunks, in base64 where needed, when the bytes are not UTF-8', () => {
    const first = Buffer.from('data: ok\n\n', 'utf8');
    const second = Buffer.concat([Buffer.from('data: '), Buffer.from([0xff, 0xfe, 0x80]), Buffer.from('\n\n')]);
    const frames = split('sse', [first, second]);
    expect(frames).toEqual([
      { atMs: 10, text: 'data: ok\n\n' },
      { atMs: 20, base64: second.toString('base64') },
    ]);
    expect(bytesOf(frames).equals(Buffer.concat([first, second]))).toBe(true);
  });

  test('falls back to base64 chunks for a stream cut off inside a multi-byte character', () => {
    const bytes = Buffer.from('data: 👋', 'utf8');
    const truncated = bytes.subarray(0, bytes.length - 1);
    const frames = split('sse', cut(truncated, [4]));
    expect(bytesOf(frames).equals(truncated)).toBe(true);
    expect(frames.some((frame) => 'base64' in frame)).toBe(true);
  });

  test('gives no frames for an empty stream', () => {
    expect(split('sse', [])).toEqual([]);
  });
});

describe('FrameSplitter for NDJSON', () => {
  test('cuts one frame per line, with its newline, and keeps a last line without one', () => {
    const frames = split('ndjson', ['{"a":1}\n{"b":', '2}\n{"c":"é"}\n{"d":4}']);
    expect(frames).toEqual([
      { atMs: 10, text: '{"a":1}\n' },
      { atMs: 20, text: '{"b":2}\n' },
      { atMs: 20, text: '{"c":"é"}\n' },
      { atMs: 1000, text: '{"d":4}' },
    ]);
  });

  test('gives frames that concatenate to exactly the input at every cut', () => {
    const bytes = Buffer.from('{"text":"日本"}\r\n{"n":1}\n\n{"done":true}\n', 'utf8');
    for (let offset = 1; offset < bytes.length; offset++) expect(bytesOf(split('ndjson', cut(bytes, [offset]))).equals(bytes)).toBe(true);
    expect(texts(split('ndjson', [bytes]))).toEqual(['{"text":"日本"}\r\n', '{"n":1}\n', '\n', '{"done":true}\n']);
  });
});

describe('FrameSplitter for chunks', () => {
  test('keeps each chunk as a frame, as text when it is UTF-8 and base64 otherwise', () => {
    const binary = Buffer.from([0x00, 0xff, 0x10]);
    const frames = split('chunks', ['hello ', binary, 'wörld']);
    expect(frames).toEqual([
      { atMs: 10, text: 'hello ' },
      { atMs: 20, base64: binary.toString('base64') },
      { atMs: 30, text: 'wörld' },
    ]);
  });
});

describe('streamFormatOf', () => {
  test('recognises SSE and NDJSON whatever the parameters or case', () => {
    expect(streamFormatOf('text/event-stream', false)).toBe('sse');
    expect(streamFormatOf('Text/Event-Stream; charset=utf-8', true)).toBe('sse');
    expect(streamFormatOf('application/x-ndjson', true)).toBe('ndjson');
    expect(streamFormatOf('application/jsonl', false)).toBe('ndjson');
    expect(streamFormatOf('application/jsonlines; charset=utf-8', false)).toBe('ndjson');
  });

  test('recognises AWS event streams whether chunked or not', () => {
    expect(streamFormatOf('application/vnd.amazon.eventstream', false)).toBe('eventstream');
    expect(streamFormatOf('Application/VND.Amazon.EventStream; charset=utf-8', true)).toBe('eventstream');
  });

  test('keeps raw chunks only for a chunked response with no type or an octet stream', () => {
    expect(streamFormatOf(undefined, true)).toBe('chunks');
    expect(streamFormatOf('application/octet-stream', true)).toBe('chunks');
    expect(streamFormatOf(undefined, false)).toBeUndefined();
    expect(streamFormatOf('application/octet-stream', false)).toBeUndefined();
  });

  test('treats JSON and text responses as plain bodies even when chunked', () => {
    expect(streamFormatOf('application/json', true)).toBeUndefined();
    expect(streamFormatOf('text/plain', true)).toBeUndefined();
    expect(streamFormatOf('application/json; charset=utf-8', false)).toBeUndefined();
  });
});

describe('FrameSplitter for AWS event streams', () => {
  const messages = converseStream('Hi there, friend');
  const stream = Buffer.concat(messages);

  test('cuts one readable frame per message, stamped when it completed', () => {
    const frames = split('eventstream', [
      Buffer.concat(messages.slice(0, 2)),
      messages[2]!.subarray(0, 5),
      Buffer.concat([messages[2]!.subarray(5), ...messages.slice(3)]),
    ]);
    expect(frames.map((frame) => frame.atMs)).toEqual([10, 10, 30, 30, 30, 30]);
    expect(frames[1]).toEqual({
      atMs: 10,
      event: {
        headers: { ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' },
        json: { contentBlockIndex: 0, delta: { text: 'Hi there' }, p: expect.any(String) },
      },
    });
    expect(frames.every((frame) => 'event' in frame)).toBe(true);
    expect(bytesOf(frames).equals(stream)).toBe(true);
  });

  test('cuts the same frames when the bytes arrive one at a time', () => {
    const whole = split('eventstream', [stream]);
    const splitter = new FrameSplitter('eventstream');
    for (let index = 0; index < stream.length; index++) splitter.push(stream.subarray(index, index + 1), index);
    const frames = splitter.finish(stream.length);
    expect(frames).toHaveLength(messages.length);
    expect(frames.map((frame) => ('event' in frame ? frame.event : frame))).toEqual(whole.map((frame) => ('event' in frame ? frame.event : frame)));
    // Each frame is stamped with the push of its last byte.
    let end = 0;
    expect(frames.map((frame) => frame.atMs)).toEqual(messages.map((message) => (end += message.length) - 1));
    expect(bytesOf(frames).equals(stream)).toBe(true);
  });

  test('gives the exact bytes back at every single cut', () => {
    let checked = 0;
    for (let offset = 1; offset < stream.length; offset++) {
      const frames = split('eventstream', cut(stream, [offset]));
      expect(frames).toHaveLength(messages.length);
      expect(bytesOf(frames).equals(stream)).toBe(true);
      checked++;
    }
    expect(checked).toBe(stream.length - 1);
  });

  test('keeps a message whose CRC fails as base64 of its bytes, and the messages around it readable', () => {
    const bad = Buffer.from(messages[1]!);
    bad[bad.length - 10]! ^= 0x20;
    const frames = split('eventstream', [messages[0]!, bad, messages[2]!]);
    expect(frames.map((frame) => Object.keys(frame).filter((name) => name !== 'atMs'))).toEqual([['event'], ['base64'], ['event']]);
    expect(frames[1]).toEqual({ atMs: 20, base64: bad.toString('base64') });
    expect(bytesOf(frames).equals(Buffer.concat([messages[0]!, bad, messages[2]!]))).toBe(true);
  });

  test('keeps a message cut off at the end as base64 stamped at finish', () => {
    const partial = messages[1]!.subarray(0, 20);
    const frames = split('eventstream', [messages[0]!, partial]);
    expect(frames).toEqual([
      { atMs: 10, event: expect.any(Object) },
      { atMs: 1000, base64: partial.toString('base64') },
    ]);
    expect(split('eventstream', [Buffer.from([0, 0])])).toEqual([{ atMs: 1000, base64: 'AAA=' }]);
  });

  test('keeps everything after a prelude no message can have as one base64 frame', () => {
    const garbage = Buffer.from([0, 0, 0, 3, 1, 2, 3, 4, 5]);
    const frames = split('eventstream', [messages[0]!, garbage, messages[1]!]);
    expect(frames).toHaveLength(2);
    expect(frames[1]).toEqual({ atMs: 1000, base64: Buffer.concat([garbage, messages[1]!]).toString('base64') });
  });

  test('shows the model event inside an InvokeModelWithResponseStream chunk', () => {
    const inner = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } };
    const frames = split('eventstream', [chunkMessage(inner), chunkMessage({ type: 'message_stop' })]);
    expect(frames[0]).toEqual({ atMs: 10, event: { headers: expect.any(Object), json: { p: expect.any(String) }, bytes: { json: inner } } });
    expect(bytesOf(frames).equals(Buffer.concat([chunkMessage(inner), chunkMessage({ type: 'message_stop' })]))).toBe(true);
  });
});
