import { describe, expect, test } from 'vitest';
import { decodeBody, encodeBody, isJsonContentType, utf8OrUndefined } from './body-encoding.js';

describe('isJsonContentType', () => {
  test('recognises application/json with parameters and +json types, in any case', () => {
    expect(isJsonContentType('application/json')).toBe(true);
    expect(isJsonContentType('application/json; charset=utf-8')).toBe(true);
    expect(isJsonContentType('Application/JSON')).toBe(true);
    expect(isJsonContentType('application/problem+json')).toBe(true);
    expect(isJsonContentType('application/vnd.api+json; charset=utf-8')).toBe(true);
  });

  test('refuses other and missing types', () => {
    expect(isJsonContentType(undefined)).toBe(false);
    expect(isJsonContentType('')).toBe(false);
    expect(isJsonContentType('text/plain')).toBe(false);
    expect(isJsonContentType('text/event-stream')).toBe(false);
    expect(isJsonContentType('application/x-ndjson')).toBe(false);
    expect(isJsonContentType('application/jsonp')).toBe(false);
  });
});

describe('encodeBody', () => {
  test('parses a JSON body declared as JSON', () => {
    expect(encodeBody(Buffer.from('{ "a": [1, "é"] }'), 'application/json')).toEqual({ json: { a: [1, 'é'] } });
    expect(encodeBody(Buffer.from('42'), 'application/json')).toEqual({ json: 42 });
    expect(encodeBody(Buffer.from('"text"'), 'application/problem+json')).toEqual({ json: 'text' });
  });

  test('parses an object or array body when no content type is given', () => {
    expect(encodeBody(Buffer.from('  {"a":1}'), undefined)).toEqual({ json: { a: 1 } });
    expect(encodeBody(Buffer.from('[1,2]'), undefined)).toEqual({ json: [1, 2] });
  });

  test('keeps an undeclared body that is not an object or array as text', () => {
    expect(encodeBody(Buffer.from('42'), undefined)).toEqual({ text: '42' });
    expect(encodeBody(Buffer.from('hello'), undefined)).toEqual({ text: 'hello' });
  });

  test('keeps invalid JSON declared as JSON as text, exactly', () => {
    const text = '{"model": "gpt-4o", "messages": [ \n';
    expect(encodeBody(Buffer.from(text), 'application/json')).toEqual({ text });
    expect(encodeBody(Buffer.from('{"a":1}}'), undefined)).toEqual({ text: '{"a":1}}' });
  });

  test('keeps JSON-looking text declared as another type as text', () => {
    expect(encodeBody(Buffer.from('{"a":1}'), 'text/plain')).toEqual({ text: '{"a":1}' });
  });

  test('keeps bytes that are not UTF-8 as base64, whatever the content type says', () => {
    const bytes = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x00, 0x80, 0x7d]);
    expect(encodeBody(bytes, 'application/json')).toEqual({ base64: bytes.toString('base64') });
    expect(encodeBody(bytes, 'application/octet-stream')).toEqual({ base64: bytes.toString('base64') });
  });

  test('keeps a genuine U+FFFD character as text', () => {
    expect(encodeBody(Buffer.from('replacement: \uFFFD'), 'text/plain')).toEqual({ text: 'replacement: \uFFFD' });
  });

  test('returns undefined for an empty payload', () => {
    expect(encodeBody(new Uint8Array(0), 'application/json')).toBeUndefined();
  });

  test('reads only the viewed bytes of a Uint8Array that is not a Buffer', () => {
    const backing = new TextEncoder().encode('xx{"a":1}yy');
    expect(encodeBody(backing.subarray(2, 9), 'application/json')).toEqual({ json: { a: 1 } });
  });
});

describe('decodeBody', () => {
  test('gives back text and base64 bodies byte for byte', () => {
    const bytes = Buffer.from([0, 1, 2, 0xff, 0x80]);
    expect(decodeBody({ base64: bytes.toString('base64') }).equals(bytes)).toBe(true);
    expect(decodeBody({ text: 'héllo\r\n' }).equals(Buffer.from('héllo\r\n', 'utf8'))).toBe(true);
  });

  test('gives back a JSON body as compact JSON', () => {
    expect(decodeBody({ json: { b: 1, a: ['é'] } }).toString('utf8')).toBe('{"b":1,"a":["é"]}');
  });

  test('gives no bytes for no body', () => {
    expect(decodeBody(undefined).length).toBe(0);
  });

  test('round-trips what encodeBody chose, for text and base64', () => {
    const payloads = [Buffer.from('plain text'), Buffer.from([0xc3, 0x28]), Buffer.from('{broken json', 'utf8')];
    for (const payload of payloads) expect(decodeBody(encodeBody(payload, 'application/json')).equals(payload)).toBe(true);
    expect(payloads).toHaveLength(3);
  });
});

describe('utf8OrUndefined', () => {
  test('decodes valid UTF-8 and refuses invalid sequences', () => {
    expect(utf8OrUndefined(Buffer.from('héllo 👋'))).toBe('héllo 👋');
    expect(utf8OrUndefined(Buffer.from([0xe2, 0x82]))).toBeUndefined();
    expect(utf8OrUndefined(Buffer.from([0xed, 0xa0, 0x80]))).toBeUndefined();
    expect(utf8OrUndefined(Buffer.from([0xef, 0xbf, 0xbd]))).toBe('\uFFFD');
  });
});
