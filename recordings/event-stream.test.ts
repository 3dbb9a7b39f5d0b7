import { crc32 } from 'node:zlib';
import type { MessageHeaders } from '@smithy/core/event-streams';
import { describe, expect, test } from 'vitest';
import { PADDING, chunkMessage, converseMessage, eventHeaders, eventStreamMessage as message } from '../test/support/event-stream-messages.js';
import { crc32Of, encodeEventStreamEvent, eventStreamFrame, readEventStreamMessage } from './event-stream.js';

describe('readEventStreamMessage', () => {
  test('reads a ConverseStream event as its headers, in order, and its JSON payload', () => {
    const bytes = converseMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } });
    const event = readEventStreamMessage(bytes);
    expect(event).toEqual({
      headers: { ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' },
      json: { contentBlockIndex: 0, delta: { text: 'Hi' }, p: PADDING },
    });
    expect(Object.keys(event!.headers)).toEqual([':event-type', ':content-type', ':message-type']);
    expect(encodeEventStreamEvent(event!).equals(bytes)).toBe(true);
  });

  test('reads an InvokeModelWithResponseStream chunk with the model event inside it decoded', () => {
    const inner = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Héllo 👋' } };
    const bytes = chunkMessage(inner);
    const event = readEventStreamMessage(bytes);
    expect(event).toEqual({
      headers: { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' },
      json: { p: PADDING },
      bytes: { json: inner },
    });
    expect(encodeEventStreamEvent(event!).equals(bytes)).toBe(true);
    const bare = chunkMessage({ type: 'message_stop' }, null);
    expect(readEventStreamMessage(bare)).toMatchObject({ json: {}, bytes: { json: { type: 'message_stop' } } });
    expect(encodeEventStreamEvent(readEventStreamMessage(bare)!).equals(bare)).toBe(true);
  });

  test('keeps a chunk whose bytes come after another member as its plain JSON, still exact', () => {
    const base64 = Buffer.from('{"type":"ping"}').toString('base64');
    const bytes = message(eventHeaders('chunk'), `{"p":"abc","bytes":"${base64}"}`);
    const event = readEventStreamMessage(bytes);
    expect(event).toEqual({ headers: expect.any(Object), json: { p: 'abc', bytes: base64 } });
    expect(encodeEventStreamEvent(event!).equals(bytes)).toBe(true);
  });

  test('reads a chunk whose inner payload is text, not JSON, as text', () => {
    const base64 = Buffer.from('not json {').toString('base64');
    const bytes = message(eventHeaders('chunk'), `{"bytes":"${base64}"}`);
    expect(readEventStreamMessage(bytes)).toMatchObject({ json: {}, bytes: { text: 'not json {' } });
    expect(encodeEventStreamEvent(readEventStreamMessage(bytes)!).equals(bytes)).toBe(true);
  });

  test('reads an exception message with its exception type', () => {
    const headers: MessageHeaders = {
      ':exception-type': { type: 'string', value: 'throttlingException' },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    };
    const bytes = message(headers, '{"message":"Too many requests, please wait before trying again."}');
    expect(readEventStreamMessage(bytes)).toEqual({
      headers: { ':exception-type': 'throttlingException', ':content-type': 'application/json', ':message-type': 'exception' },
      json: { message: 'Too many requests, please wait before trying again.' },
    });
  });

  test('reads a payload that is text but not compact JSON as text, and an empty one as ""', () => {
    const spaced = message(eventHeaders('messageStop'), '{"stopReason": "end_turn"}');
    expect(readEventStreamMessage(spaced)).toMatchObject({ text: '{"stopReason": "end_turn"}' });
    const plain = message({ ':message-type': { type: 'string', value: 'event' } }, 'hello');
    expect(readEventStreamMessage(plain)).toEqual({ headers: { ':message-type': 'event' }, text: 'hello' });
    const empty = message({}, '');
    expect(readEventStreamMessage(empty)).toEqual({ headers: {}, text: '' });
    // JSON.parse lists integer-like names first: compact JSON.stringify would not give these bytes back.
    const reordered = message(eventHeaders('metadata'), '{"b":1,"10":2}');
    expect(readEventStreamMessage(reordered)).toMatchObject({ text: '{"b":1,"10":2}' });
    let checked = 0;
    for (const bytes of [spaced, plain, empty, reordered]) {
      expect(encodeEventStreamEvent(readEventStreamMessage(bytes)!).equals(bytes)).toBe(true);
      checked++;
    }
    expect(checked).toBe(4);
  });

  test('has no readable form for a message its form cannot give back exactly', () => {
    const cases: Array<[string, Buffer]> = [
      ['a header that is not a string', message({ ':event-type': { type: 'string', value: 'x' }, retries: { type: 'integer', value: 3 } }, '{}')],
      ['a payload that is not UTF-8', message(eventHeaders('chunk'), Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))],
    ];
    const corrupted = converseMessage('messageStart', { role: 'assistant' });
    corrupted[corrupted.length - 6]! ^= 0x01;
    cases.push(['a message CRC that fails', corrupted]);
    const badPrelude = converseMessage('messageStart', { role: 'assistant' });
    badPrelude[9]! ^= 0x01;
    cases.push(['a prelude CRC that fails', badPrelude]);
    cases.push(['a message cut short', converseMessage('messageStart', { role: 'assistant' }).subarray(0, 30)]);
    for (const [what, bytes] of cases) {
      expect(readEventStreamMessage(bytes), what).toBeUndefined();
      expect(eventStreamFrame(bytes, 7), what).toEqual({ atMs: 7, base64: bytes.toString('base64') });
    }
    expect(cases).toHaveLength(5);
  });
});

describe('encodeEventStreamEvent', () => {
  const string = (value: string) => ({ type: 'string' as const, value });
  test('writes every message byte for byte as @smithy/core’s codec does', () => {
    const long = 'x'.repeat(40_000);
    const cases: Array<[string, Record<string, string>, string]> = [
      ['an event', { ':event-type': 'messageStart', ':content-type': 'application/json', ':message-type': 'event' }, '{"role":"assistant"}'],
      [
        'an exception',
        { ':message-type': 'exception', ':exception-type': 'modelStreamErrorException', ':content-type': 'application/json' },
        '{"message":"x"}',
      ],
      ['headers and a payload in other scripts', { ':event-type': 'chunk', 'x-note': 'héllo 👋', ünï: 'ok' }, '{"text":"日本語 👋"}'],
      ['no headers, an empty payload', {}, ''],
      ['a name JavaScript orders first', { '1': 'one', ':event-type': 'chunk' }, '{}'],
      ['a payload past 64 KiB', { ':event-type': 'chunk' }, JSON.stringify({ text: long.repeat(2) })],
    ];
    for (const [what, headers, payload] of cases) {
      const typed = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, string(value)]));
      const expected = message(typed, payload);
      const event = readEventStreamMessage(expected);
      expect(event, what).toBeDefined();
      expect(encodeEventStreamEvent(event!).equals(expected), what).toBe(true);
      // Twice: the second time the header block comes from the cache.
      expect(encodeEventStreamEvent(event!).equals(expected), what).toBe(true);
    }
    // A value too long for a string header is left to the codec, which refuses it.
    expect(() => encodeEventStreamEvent({ headers: { ':event-type': long }, json: {} })).toThrow();
  });

  test('writes a chunk of `bytes` alone byte for byte as the codec does, whatever its inner payload’s length and script', () => {
    const headers = { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' };
    // Every remainder of a length by 3 (base64's padding), other scripts, a lone surrogate (written
    // as U+FFFD), and inner payloads past the scratch buffer the encoder writes UTF-8 into.
    const texts = ['', 'H', 'Hi', 'Hi!', '{"text":"Héllo 👋 \\"q\\""}', '日本語', '\ud800 lone', 'x'.repeat(6_000), 'é'.repeat(9_000), '👋'.repeat(3_000)];
    let checked = 0;
    for (const text of texts)
      for (const cut of [0, 1, 2]) {
        const inner = text.slice(0, Math.max(0, text.length - cut));
        const expected = message(eventHeaders('chunk'), JSON.stringify({ bytes: Buffer.from(inner, 'utf8').toString('base64') }));
        // Twice: the second time the part before the base64 comes from what is kept.
        for (let time = 0; time < 2; time++) {
          expect(encodeEventStreamEvent({ headers, json: {}, bytes: { text: inner } }).equals(expected), JSON.stringify(inner.slice(0, 20))).toBe(true);
          checked++;
        }
        if (cut === 0 && inner.startsWith('{'))
          expect(encodeEventStreamEvent({ headers, json: {}, bytes: { json: JSON.parse(inner) } }).equals(expected)).toBe(true);
      }
    expect(checked).toBe(60);
  });
});

describe('crc32Of', () => {
  test('is node:zlib’s crc32 of the range, continued from a CRC', () => {
    const bytes = Buffer.from(Array.from({ length: 300 }, (_, index) => (index * 151 + 7) % 256));
    let checked = 0;
    for (const [start, end] of [
      [0, 0],
      [0, 1],
      [0, 8],
      [3, 10],
      [5, 300],
      [0, 299],
    ] as const) {
      expect(crc32Of(bytes, start, end)).toBe(crc32(bytes.subarray(start, end)));
      expect(crc32Of(bytes, start, end, crc32(bytes.subarray(0, start)))).toBe(crc32(bytes.subarray(0, end)));
      checked++;
    }
    expect(checked).toBe(6);
  });
});
