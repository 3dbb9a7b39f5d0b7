import { describe, expect, test } from 'vitest';
import { decodeBody, encodeBody } from './body-encoding.js';
import { canonicalJson } from './canonical-json.js';
import { compileKeyRules } from './exchange-key.js';
import type { Exchange, TapeHeader } from './tape-format.js';
import { createHeader, describeExchange, serializeLine, serializeTape } from './tape-line.js';
import { parseTape } from './tape-reader.js';
import { WRITTEN_BY } from './version.js';

function richHeader(): TapeHeader {
  const rules = compileKeyRules({
    _why: 'request ids and dates change every run',
    headers: ['anthropic-version', 'openai-beta'],
    normalizers: [
      { path: '.metadata.request_id', _note: 'set by our client' },
      { pattern: '\\d{4}-\\d{2}-\\d{2}', flags: 'i', placeholder: '<date>' },
    ],
  });
  return createHeader(rules.rules, { _recordedFor: 'the checkout suite', _owner: { team: 'payments', since: 2024 } });
}

function richExchanges(): Exchange[] {
  return [
    {
      _note: 'the first call of the flow',
      key: '0123456789abcdef'.repeat(4),
      ordinal: 0,
      upstream: 'openai',
      source: 'live',
      request: {
        method: 'POST',
        path: '/v1/chat/completions',
        query: [['api-version', '2024-06-01']],
        headers: { 'content-type': 'application/json', 'openai-beta': 'assistants=v2' },
        body: {
          json: {
            model: 'gpt-4o',
            messages: [
              { role: 'system', content: 'Réponds en français. 日本語も. emoji 👋🏽, quote " backslash \\ tab \t newline \n nul \u0000 ls \u2028' },
              {
                role: 'user',
                content: [
                  { type: 'text', text: 'nested' },
                  { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
                ],
              },
            ],
            tools: [
              {
                type: 'function',
                function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
              },
            ],
            temperature: 0.7,
            max_tokens: 1e21,
            top_p: -0.000001,
            stream: false,
            metadata: { request_id: 'req-1', z: null, a: [], empty: {} },
          },
        },
        bodySha256: 'f'.repeat(64),
      },
      response: {
        _note: 'trimmed by hand',
        status: 200,
        headers: { 'content-type': 'application/json', 'x-request-id': 'req_abc', vary: ['Origin', 'Accept-Encoding'] },
        body: {
          json: {
            id: 'chatcmpl-1',
            choices: [{ index: 0, message: { role: 'assistant', content: 'Bonjour ! 👋' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 10 },
          },
        },
      },
    },
    {
      key: 'fedcba9876543210'.repeat(4),
      ordinal: 1,
      upstream: 'anthropic',
      source: 'fake',
      request: {
        method: 'POST',
        path: '/v1/messages',
        query: [],
        headers: { 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: { json: { stream: true, messages: [{ role: 'user', content: 'Count' }] } },
        bodySha256: 'e'.repeat(64),
      },
      response: {
        status: 200,
        headers: { 'content-type': 'text/event-stream; charset=utf-8' },
        stream: {
          _note: 'three events',
          format: 'sse',
          frames: [
            { atMs: 0, text: 'event: message_start\ndata: {"type":"message_start"}\n\n' },
            { atMs: 12.5, text: 'event: content_block_delta\r\ndata: {"delta":{"text":"1, 2, 3 – ✓"}}\r\n\r\n', _note: 'CRLF on purpose' },
            { atMs: 40, base64: 'AP8Q' },
          ],
        },
      },
    },
    {
      key: '1'.repeat(64),
      ordinal: 0,
      upstream: 'gemini',
      source: 'live',
      request: {
        method: 'GET',
        path: '/v1beta/models',
        query: [['pageSize', '5']],
        headers: {},
        bodySha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      },
      response: { status: 500, headers: {}, body: { text: 'upstream exploded\n' } },
    },
  ];
}

describe('serializeTape and parseTape', () => {
  test('round-trip a tape byte for byte: header, notes, nested JSON, unicode, streams', () => {
    const first = serializeTape(richHeader(), richExchanges());
    const contents = parseTape(first, 'rich.jsonl');
    expect(contents.problems).toEqual([]);
    expect(contents.warnings).toEqual([]);
    expect(contents.exchanges).toHaveLength(3);
    const second = serializeTape(
      contents.header!,
      contents.exchanges.map(({ exchange }) => exchange),
    );
    expect(second).toBe(first);
    expect(Buffer.from(second, 'utf8').equals(Buffer.from(first, 'utf8'))).toBe(true);
  });

  test('keep every note through a round trip', () => {
    const contents = parseTape(serializeTape(richHeader(), richExchanges()), 'rich.jsonl');
    expect(contents.header).toMatchObject({
      _recordedFor: 'the checkout suite',
      _owner: { team: 'payments', since: 2024 },
      keyRules: { _why: 'request ids and dates change every run' },
    });
    expect(contents.header!.keyRules.normalizers[0]).toEqual({ path: '.metadata.request_id', _note: 'set by our client' });
    const [plain, stream] = contents.exchanges.map(({ exchange }) => exchange);
    expect(plain!._note).toBe('the first call of the flow');
    expect(plain!.response._note).toBe('trimmed by hand');
    expect(stream!.response.stream!._note).toBe('three events');
    expect(stream!.response.stream!.frames[1]!._note).toBe('CRLF on purpose');
  });

  test("write the format's fields sorted whatever order they were built in, and keep recorded payloads in their order", () => {
    const text = serializeTape(richHeader(), richExchanges());
    const lines = text.split('\n').slice(0, -1);
    expect(lines[0]).toBe(canonicalJson(JSON.parse(lines[0]!)));
    for (const line of lines.slice(1)) {
      const parsed = JSON.parse(line) as { request: { body?: { json?: unknown } }; response: { body?: { json?: unknown } } };
      // Everything but the payloads is sorted: blank the payloads out and compare.
      if (parsed.request.body?.json !== undefined) parsed.request.body.json = null;
      if (parsed.response.body?.json !== undefined) parsed.response.body.json = null;
      expect(JSON.stringify(parsed)).toBe(canonicalJson(parsed));
    }
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(5);
  });

  test('keeps a recorded JSON payload in the key order it arrived in, and the same bytes on a round trip', () => {
    const [exchange] = richExchanges();
    const withOrder = { ...exchange!, response: { status: 200, headers: {}, body: { json: { zeta: 1, alpha: { y: 2, b: 3 } } } } };
    const line = serializeLine(withOrder);
    expect(line).toContain('"body":{"json":{"zeta":1,"alpha":{"y":2,"b":3}}}');
    expect(serializeLine(JSON.parse(line))).toBe(line);
  });
});

describe('an event stream frame in a tape line', () => {
  test('keeps its headers, its payload and its decoded bytes in the order they arrived, and sorts the rest', () => {
    const [exchange] = richExchanges();
    const event = {
      headers: { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' },
      json: { z: 1, p: 'abc' },
      bytes: { json: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } } },
      _note: 'sorted like the format',
    };
    const withEvents = { ...exchange!, response: { status: 200, headers: {}, stream: { frames: [{ event, atMs: 3 }], format: 'eventstream' as const } } };
    const line = serializeLine(withEvents);
    expect(line).toContain(
      '"stream":{"format":"eventstream","frames":[{"atMs":3,"event":{"_note":"sorted like the format","bytes":{"json":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}},"headers":{":event-type":"chunk",":content-type":"application/json",":message-type":"event"},"json":{"z":1,"p":"abc"}}}]}',
    );
    expect(serializeLine(JSON.parse(line))).toBe(line);
  });
});

describe('an exact JSON response body in a tape line', () => {
  const bytes = Buffer.from('{\n  "z": 9007199254740993,\n  "scores": {\n    "10": "caf\\u00e9",\n    "2": 1.0\n  }\n}\n');

  test('reads back to the same line, the layout sorted like every field of the format and its key orders kept', () => {
    const [exchange] = richExchanges();
    const body = encodeBody(bytes, 'application/json', { exact: true })!;
    const line = serializeLine({ ...exchange!, response: { status: 200, headers: {}, body } });
    expect(line).toContain(
      '"body":{"json":{"z":9007199254740992,"scores":{"2":1,"10":"café"}},"layout":{"ascii":true,"indent":"  ","keyOrder":{".scores":["10","2"]},"literals":{".scores[\\"2\\"]":"1.0",".z":"9007199254740993"},"trailing":"\\n"},"sha256":"',
    );
    const loaded = parseTape(`${serializeLine(richHeader())}${line}`, 'exact.jsonl');
    expect(loaded.problems).toEqual([]);
    expect(serializeLine(loaded.exchanges[0]!.exchange)).toBe(line);
    expect(decodeBody(loaded.exchanges[0]!.exchange.response.body).equals(bytes)).toBe(true);
  });
});

describe('serializeLine', () => {
  test('writes sorted keys, no whitespace and one trailing newline', () => {
    const [exchange] = richExchanges();
    const line = serializeLine(exchange!);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(line.startsWith('{"_note":"the first call of the flow","key":')).toBe(true);
  });
});

describe('createHeader', () => {
  test('stamps the schema version and writer and keeps the notes', () => {
    const rules = compileKeyRules().rules;
    expect(createHeader(rules, { _a: 1 })).toEqual({ _a: 1, schemaVersion: 4, writtenBy: WRITTEN_BY, keyRules: rules });
    expect(WRITTEN_BY).toBe('modeltape@0.1.0');
  });
});

describe('describeExchange', () => {
  test('names an exchange by method, path and upstream', () => {
    expect(describeExchange(richExchanges()[1]!)).toBe('POST /v1/messages (anthropic)');
  });
});
