import { describe, expect, it } from 'vitest';
import { readFetchInput } from './fetch-input.js';

// What fetch itself makes of the arguments: the reading every in-process answerer must match.
async function asFetchReadsIt(input: string | URL | Request, init?: RequestInit) {
  const request = new Request(input, init);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer()).toString('latin1');
  return { method: request.method, url: request.url, headers, body };
}

async function asRead(input: string | URL | Request, init?: RequestInit) {
  const read = await readFetchInput(input, init);
  const body = read.body === undefined ? undefined : Buffer.from(typeof read.body === 'string' ? Buffer.from(read.body, 'utf8') : read.body).toString('latin1');
  return { method: read.method, url: read.url.href, headers: read.headers, body };
}

const URL_TEXT = 'https://api.openai.com/v1/chat/completions?x=1';
const JSON_BODY = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'héllo' }] });

describe('readFetchInput reads a fetch call as new Request(input, init) does', () => {
  // Each case makes its arguments anew: a Request's body is read once.
  const cases: Array<[string, () => string | URL | Request, RequestInit | undefined]> = [
    ['a URL string, no init', () => URL_TEXT, undefined],
    ['a URL object and a JSON body', () => new URL(URL_TEXT), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON_BODY }],
    ['a string body without a content type (text/plain added)', () => URL_TEXT, { method: 'POST', body: 'plain' }],
    ['bytes (no content type added)', () => URL_TEXT, { method: 'POST', body: new TextEncoder().encode(JSON_BODY) }],
    ['an ArrayBuffer', () => URL_TEXT, { method: 'PUT', body: new TextEncoder().encode('abc').buffer as ArrayBuffer }],
    ['a lower-case method (upper-cased)', () => URL_TEXT, { method: 'post', body: '{}' }],
    ['patch (kept as written)', () => URL_TEXT, { method: 'patch', body: '{}' }],
    ['PATCH', () => URL_TEXT, { method: 'PATCH', body: '{}' }],
    [
      'header pairs with a repeat (joined), mixed case',
      () => URL_TEXT,
      {
        headers: [
          ['X-Trace', 'a'],
          ['x-trace', 'b'],
          ['Authorization', 'Bearer sk-test-fake'],
        ],
      },
    ],
    ['a Headers object', () => URL_TEXT, { method: 'DELETE', headers: new Headers({ 'OpenAI-Beta': 'assistants=v2' }) }],
    ['a Request', () => new Request(URL_TEXT, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON_BODY }), undefined],
    ['a Request with init over it', () => new Request(URL_TEXT, { method: 'POST', body: 'old' }), { body: 'new', headers: { 'x-a': '1' } }],
    ['a URLSearchParams body', () => URL_TEXT, { method: 'POST', body: new URLSearchParams({ a: '1', b: 'two' }) }],
    ['a null body', () => URL_TEXT, { method: 'POST', body: null }],
  ];
  for (const [name, input, init] of cases) {
    it(name, async () => {
      expect(await asRead(input(), init)).toEqual(await asFetchReadsIt(input(), init));
    });
  }

  it('throws what fetch throws for a body on GET, a URL with credentials, a relative URL and a forbidden method', async () => {
    const refused: Array<[string | URL, RequestInit | undefined]> = [
      [URL_TEXT, { method: 'GET', body: 'x' }],
      [URL_TEXT, { method: 'head', body: new Uint8Array(1) }],
      ['https://user:pass@api.openai.com/v1/models', undefined],
      ['/v1/models', undefined],
      [URL_TEXT, { method: 'CONNECT' }],
    ];
    for (const [input, init] of refused) {
      await expect(readFetchInput(input, init)).rejects.toThrow(TypeError);
    }
  });

  it('passes the caller’s signal through, and none when none was given on the direct path', async () => {
    const controller = new AbortController();
    expect((await readFetchInput(URL_TEXT, { signal: controller.signal })).signal).toBe(controller.signal);
    expect((await readFetchInput(URL_TEXT, { method: 'POST', body: '{}' })).signal).toBeUndefined();
  });
});
