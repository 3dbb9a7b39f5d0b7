import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, gunzipSync } from 'node:zlib';
import { expect, test, vi } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { startProxy } from 'modeltape/proxy';
import { serializeTape, loadTape } from 'modeltape/recordings';
import { assertRenderedSnapshot } from 'modeltape/replay';
import { runMain } from '../support/cli.js';
import { chunkMessage, converseMessage } from '../support/event-stream-messages.js';
import { writeReplayingSuite, writeTapeByHand } from '../support/hand-written-tape.js';
import { startStandInUpstream, type ReceivedRequest, type StandInReply } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// Fake keys in every shape the detector knows without context, built at runtime so this file
// holds none, each row's own (so a leak names its row). `secret` is the part after the
// recognisable prefix: no 8-character slice of it may reach any output.
const tailFor = (seed: string, length: number) => {
  let tail = 'FAKE';
  for (let round = 0; tail.length < length; round++)
    tail += createHash('sha256')
      .update(`${seed}/${round}`)
      .digest('base64')
      .replace(/[^A-Za-z0-9]/g, '');
  return tail.slice(0, length);
};
const shape = (prefix: string, length: number) => (seed: string) => {
  const secret = tailFor(seed, length);
  return { key: prefix + secret, secret };
};
const SHAPES = {
  'openai-project': shape('sk-' + 'proj-', 48),
  'openai-legacy': shape('sk' + '-', 48),
  anthropic: shape('sk-' + 'ant-api03-', 40),
  github: shape('gh' + 'p_', 36),
  'github-pat': shape('github' + '_pat_', 40),
  jwt: (seed: string) => {
    const secret = tailFor(seed, 30);
    return { key: `${'ey' + 'J'}hbGciOiJIUzI1NiJ9.${'ey' + 'J'}zdWIiOiJGQUtFMTIzNDU2In0.${secret}`, secret };
  },
  stripe: shape('sk' + '_live_', 32),
  slack: shape('xo' + 'xb-1234-', 32),
  huggingface: shape('h' + 'f_', 34),
  groq: shape('gs' + 'k_', 52),
  xai: shape('xa' + 'i-', 60),
  google: shape('AI' + 'za', 35),
  // An OpenAI Realtime client secret (an ephemeral key).
  ephemeral: shape('e' + 'k_', 32),
  'aws-access-key': (seed: string) => {
    const secret = `FAKE${tailFor(seed, 40)
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '')}`.slice(0, 16);
    return { key: 'AK' + 'IA' + secret, secret };
  },
  // A long-term Amazon Bedrock API key: `ABSK` and base64.
  'bedrock-api-key': shape('AB' + 'SK', 60),
  // A Google OAuth access token (Vertex AI's bearer): `ya29.` then letters, digits, `_`, `-`, `.`.
  'google-oauth': (seed: string) => {
    const tail = tailFor(seed, 60);
    const secret = `${tail.slice(0, 20)}_${tail.slice(20, 40)}-${tail.slice(40)}`;
    return { key: 'ya' + '29.a0' + secret, secret };
  },
};
type Shape = keyof typeof SHAPES;

/** The upstream a placement's request goes to, and the host a snapshot of it names. */
const ROUTES = {
  openai: 'https://api.openai.com',
  bedrock: 'https://bedrock-runtime.us-east-1.amazonaws.com',
  azure: 'https://fake-resource.openai.azure.com',
  vertex: 'https://us-central1-aiplatform.googleapis.com',
} as const;
type Route = keyof typeof ROUTES;

interface Placement {
  /** The upstream, the first segment of the proxy's path. @default 'openai' */
  route?: Route;
  /** What the client sends: path (after /<route>), extra headers, body. */
  request?: (key: string) => { path?: string; headers?: Record<string, string>; body?: Buffer | string };
  /** What the upstream answers (to the request as it reached it). */
  response?: (key: string, request: ReceivedRequest) => StandInReply;
}

const json = (value: unknown) => JSON.stringify(value);
const chat = (content: unknown) => json({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
const unicodeEscaped = (text: string) => [...text].map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const htmlEscaped = (text: string) => [...text].map((character) => `&#${character.charCodeAt(0)};`).join('');
const rawSse = (contents: string[]) => [...contents.map((content) => `data: {"choices":[{"delta":{"content":"${content}"}}]}\n\n`), 'data: [DONE]\n\n'];
const mimeWrapped = (key: string) =>
  Buffer.from(`OPENAI_API_KEY_FILE\n${'x'.repeat(40)}\nKEY=${key}\n${'y'.repeat(60)}`)
    .toString('base64')
    .replace(/.{76}/g, '$&\r\n');
const EVENT_STREAM = { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'fake-request-0' };
const BEDROCK_INVOKE_STREAM = '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke-with-response-stream';
const BEDROCK_CONVERSE_STREAM = '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream';
const bedrockConverse = json({ messages: [{ role: 'user', content: [{ text: 'Say hello' }] }] });
const AZURE_CHAT = '/openai/deployments/fake-deployment/chat/completions?api-version=2024-10-21';
const VERTEX_GEMINI = '/v1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent';
const geminiRequest = json({ contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }] });
const sse = (pieces: string[]) => [...pieces.map((piece) => `data: ${json({ choices: [{ delta: { content: piece } }] })}\n\n`), 'data: [DONE]\n\n'];

// Rows: every way a key reaches a request or a response. Adding a placement is adding a row.
const PLACEMENTS: Record<string, Placement> = {
  'query code': { request: (key) => ({ path: `/v1/models?code=${key}` }) },
  'query private_token': { request: (key) => ({ path: `/v1/models?private_token=${key}` }) },
  'query jwt': { request: (key) => ({ path: `/v1/models?jwt=${key}` }) },
  'query pass': { request: (key) => ({ path: `/v1/models?pass=${key}` }) },
  'query credential': { request: (key) => ({ path: `/v1/models?credential=${key}` }) },
  'query key[]': { request: (key) => ({ path: `/v1/models?key[]=${key}` }) },
  'bare query token': { request: (key) => ({ path: `/v1/models?${key}` }) },
  'any query value': { request: (key) => ({ path: `/v1/models?after=${encodeURIComponent(key)}` }) },
  ';token= path parameter': { request: (key) => ({ path: `/v1/models;token=${key}` }) },
  'url path': { request: (key) => ({ path: `/v1/files/${key}` }) },
  'url path, percent-encoded': { request: (key) => ({ path: `/v1/files/${[...key].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}` }) },
  'json body content': { request: (key) => ({ body: chat(`my key is ${key}`) }) },
  'json property name': { request: (key) => ({ body: json({ model: 'm', metadata: { [key]: true } }) }) },
  'split across array items': { request: (key) => ({ body: json({ model: 'm', stop: [key.slice(0, 5), key.slice(5)] }) }) },
  'split across content parts': {
    request: (key) => ({
      body: chat([
        { type: 'text', text: key.slice(0, 9) },
        { type: 'text', text: key.slice(9) },
      ]),
    }),
  },
  'base64 in a json string': { request: (key) => ({ body: chat(Buffer.from(key).toString('base64')) }) },
  'url-encoded in a json string': { request: (key) => ({ body: chat(encodeURIComponent(key).replace(/[-_]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)) }) },
  'after an underscore': { request: (key) => ({ body: chat(`x_${key}`) }) },
  'after a digit': { request: (key) => ({ body: chat(`9${key}`) }) },
  'after an escaped newline': { request: (key) => ({ body: `{"model":"m","messages":[{"role":"user","content":"k:\\n${key}"}]}` }) },
  'followed by capitals and digits': { request: (key) => ({ body: chat(`${key}ZZ99 end`) }) },
  'json-escaped in a body kept as written': {
    request: (key) => ({ body: `{"model": "m",   "messages": [{"role": "user", "content": "${unicodeEscaped(key)}"}]}` }),
  },
  'base64 twice': { request: (key) => ({ body: chat(Buffer.from(Buffer.from(key).toString('base64')).toString('base64')) }) },
  'utf-16 body without a byte order mark': {
    request: (key) => ({ headers: { 'content-type': 'text/plain; charset=utf-16le' }, body: Buffer.from(`key ${key}`, 'utf16le') }),
  },
  'base64 glued to other base64': { request: (key) => ({ body: chat(`QQQ${Buffer.from(key).toString('base64')}`) }) },
  'MIME-wrapped base64 part': {
    request: (key) => ({
      headers: { 'content-type': 'multipart/form-data; boundary=XX' },
      body: `--XX\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n${mimeWrapped(key)}\r\n--XX--\r\n`,
    }),
  },
  'form-encoded body': {
    request: (key) => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `model=m&prompt=${encodeURIComponent(key)}` }),
  },
  'multipart text part': {
    request: (key) => ({
      headers: { 'content-type': 'multipart/form-data; boundary=XX' },
      body: `--XX\r\nContent-Disposition: form-data; name="purpose"\r\n\r\n${key}\r\n--XX--\r\n`,
    }),
  },
  'binary multipart part': {
    request: (key) => ({
      headers: { 'content-type': 'multipart/form-data; boundary=XX' },
      body: Buffer.concat([Buffer.from('--XX\r\nContent-Type: application/octet-stream\r\n\r\n\xff\xfe\x00'), Buffer.from(key), Buffer.from('\r\n--XX--\r\n')]),
    }),
  },
  'octet-stream body': {
    request: (key) => ({ headers: { 'content-type': 'application/octet-stream' }, body: Buffer.concat([Buffer.from([0, 255, 1]), Buffer.from(key)]) }),
  },
  'gzip request body': { request: (key) => ({ headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(chat(key)) }) },
  'utf-16 body': { request: (key) => ({ headers: { 'content-type': 'text/plain; charset=utf-16le' }, body: Buffer.from(`\ufeffkey ${key}`, 'utf16le') }) },
  'allowlisted key header': { request: (key) => ({ headers: { 'x-tenant': key } }) },
  'response www-authenticate': { response: (key) => ({ headers: { 'www-authenticate': `Bearer realm="x", token="${key}"` }, body: '{}' }) },
  'response x-*-token': { response: (key) => ({ headers: { 'x-session-token': key }, body: '{}' }) },
  'response x-*-key': { response: (key) => ({ headers: { 'x-upstream-key': key }, body: '{}' }) },
  'response set-cookie2': { response: (key) => ({ headers: { 'set-cookie2': `s=${key}` }, body: '{}' }) },
  'response x-amzn-remapped-authorization': { response: (key) => ({ headers: { 'x-amzn-remapped-authorization': `Bearer ${key}` }, body: '{}' }) },
  'response location with a token': { response: (key) => ({ status: 302, headers: { location: `https://example.test/cb?token=${key}` }, body: '' }) },
  'response any header': { response: (key) => ({ headers: { 'x-debug': `used ${key}` }, body: '{}' }) },
  'response json body': {
    response: (key) => ({ headers: { 'content-type': 'application/json' }, body: json({ choices: [{ message: { content: `key: ${key}` } }] }) }),
  },
  'response octet-stream body': {
    response: (key) => ({ headers: { 'content-type': 'application/octet-stream' }, body: Buffer.concat([Buffer.from([0, 255]), Buffer.from(key)]) }),
  },
  'response utf-16 json without a byte order mark': {
    response: (key) => ({ headers: { 'content-type': 'application/json; charset=utf-16le' }, body: Buffer.from(json({ note: key }), 'utf16le') }),
  },
  'response html entities': { response: (key) => ({ headers: { 'content-type': 'text/html' }, body: `<p>${htmlEscaped(key)}</p>` }) },
  'response stream, json-escaped': { response: (key) => ({ headers: { 'content-type': 'text/event-stream' }, frames: rawSse([unicodeEscaped(key), 'ok']) }) },
  'response stream, after an escaped curly quote': {
    response: (key) => ({ headers: { 'content-type': 'text/event-stream' }, frames: rawSse([`\\u201c${key}\\u201d`]) }),
  },
  'response stream, split across deltas': {
    response: (key) => ({ headers: { 'content-type': 'text/event-stream' }, frames: sse([key.slice(0, 2), key.slice(2, 11), key.slice(11)]) }),
  },
  // The cloud wire formats: Bedrock (AWS event streams, SigV4), Azure OpenAI, Vertex AI.
  'bedrock event-stream payload': {
    route: 'bedrock',
    request: () => ({ path: BEDROCK_CONVERSE_STREAM, body: bedrockConverse }),
    response: (key) => ({
      headers: EVENT_STREAM,
      body: Buffer.concat([
        converseMessage('messageStart', { role: 'assistant' }),
        converseMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: `Sign in with ${key}` } }),
        converseMessage('messageStop', { stopReason: 'end_turn' }),
      ]),
    }),
  },
  'bedrock event-stream chunk, base64 of the model event': {
    route: 'bedrock',
    request: () => ({
      path: BEDROCK_INVOKE_STREAM,
      body: json({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }),
    }),
    response: (key) => ({
      headers: EVENT_STREAM,
      body: Buffer.concat([
        chunkMessage({ type: 'message_start', message: { id: 'msg_fake_0', role: 'assistant', content: [] } }),
        chunkMessage({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `Sign in with ${key}` } }),
        chunkMessage({ type: 'message_stop' }),
      ]),
    }),
  },
  'bedrock event-stream chunk, split across messages': {
    route: 'bedrock',
    request: () => ({
      path: BEDROCK_INVOKE_STREAM,
      body: json({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'split' }] }),
    }),
    response: (key) => ({
      headers: EVENT_STREAM,
      frames: [key.slice(0, 6), key.slice(6)].map((text) => chunkMessage({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    }),
  },
  'x-amz-security-token header': {
    route: 'bedrock',
    request: (key) => ({ path: '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse', headers: { 'x-amz-security-token': key }, body: bedrockConverse }),
  },
  // An answer that echoes the request as it was signed, as S3's SignatureDoesNotMatch echoes its canonical request.
  'bedrock answer echoing the signed session token': {
    route: 'bedrock',
    request: () => ({
      path: '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse',
      body: json({ messages: [{ role: 'user', content: [{ text: 'echo' }] }] }),
    }),
    response: (_key, request) => ({
      status: 403,
      headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'InvalidSignatureException' },
      body: json({ message: `The canonical request should have been 'POST\nx-amz-security-token:${String(request.headers['x-amz-security-token'])}'` }),
    }),
  },
  'azure api-key header': { route: 'azure', request: (key) => ({ path: AZURE_CHAT, headers: { 'api-key': key } }) },
  'azure api-key query': { route: 'azure', request: (key) => ({ path: `${AZURE_CHAT}&api-key=${encodeURIComponent(key)}` }) },
  'azure content-filter annotation': {
    route: 'azure',
    request: () => ({ path: AZURE_CHAT }),
    response: (key) => ({
      headers: { 'content-type': 'application/json' },
      body: json({
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'ok' },
            finish_reason: 'stop',
            content_filter_results: {
              protected_material_code: { filtered: false, detected: true, citation: { URL: `https://github.com/fake/repo?token=${key}`, license: key } },
            },
          },
        ],
        prompt_filter_results: [{ prompt_index: 0, content_filter_results: { jailbreak: { filtered: false, detected: false, note: key } } }],
      }),
    }),
  },
  'vertex answer text': {
    route: 'vertex',
    request: () => ({ path: VERTEX_GEMINI, body: geminiRequest }),
    response: (key) => ({
      headers: { 'content-type': 'application/json' },
      body: json({
        candidates: [{ content: { role: 'model', parts: [{ text: `Sign in with ${key}` }] }, finishReason: 'STOP' }],
        modelVersion: 'gemini-2.5-flash',
      }),
    }),
  },
  'vertex authorization bearer': {
    route: 'vertex',
    request: (key) => ({ path: VERTEX_GEMINI, headers: { authorization: `Bearer ${key}` }, body: geminiRequest }),
  },
};

const ROWS = Object.entries(PLACEMENTS).flatMap(([placement, how]) =>
  (Object.keys(SHAPES) as Shape[]).map((shapeName) => ({ placement, shapeName, how, ...SHAPES[shapeName](`${placement}/${shapeName}`) })),
);

/** Where a key sits in an exchange a tape holds (put there by hand: the recorder refuses it). */
interface TapePlacement {
  /** The request: its path (after /openai) and JSON body. */
  request?: (key: string, row: number) => { path?: string; json: Record<string, unknown> };
  /** The answer: a JSON body, or SSE frames. @default a plain chat answer */
  response?: (key: string) => { json: unknown } | { sse: string[] };
}

const chatRequest = (row: number, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: `row ${row}` }],
  ...extra,
});
const completion = (message: Record<string, unknown>, finish = 'stop', model = 'gpt-4o-mini') => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1770000000,
  model,
  choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finish, logprobs: null }],
  usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 },
});
const chunk = (delta: Record<string, unknown>, finish: string | null) =>
  `data: ${json({ id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1770000000, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

// Rows of the second table: every field of a tape a report, a page or a listing shows.
const TAPE_PLACEMENTS: Record<string, TapePlacement> = {
  'answer text': { response: (key) => ({ json: completion({ content: `Sign in with ${key} now.` }) }) },
  'tool call arguments': {
    response: (key) => ({
      json: completion(
        { content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'sign_in', arguments: json({ token: key, user: 'ada' }) } }] },
        'tool_calls',
      ),
    }),
  },
  'streamed answer': {
    request: (_key, row) => ({ json: chatRequest(row, { stream: true }) }),
    response: (key) => ({
      sse: [chunk({ role: 'assistant', content: '' }, null), chunk({ content: `Sign in with ${key}` }, null), chunk({}, 'stop'), 'data: [DONE]\n\n'],
    }),
  },
  'model name': {
    request: (key, row) => ({ json: { ...chatRequest(row), model: `ft:gpt-4o-mini:${key}` } }),
    response: (key) => ({ json: completion({ content: 'ok' }, 'stop', `ft:gpt-4o-mini:${key}`) }),
  },
  'finish reason': { response: (key) => ({ json: completion({ content: 'ok' }, `stop:${key}`) }) },
  'request content': { request: (key, row) => ({ json: { ...chatRequest(row), messages: [{ role: 'user', content: `row ${row}: my key is ${key}` }] } }) },
  'request path': { request: (key, row) => ({ path: `/v1/files/${key}/content`, json: { row } }), response: () => ({ json: { ok: true } }) },
};

const TAPE_ROWS = Object.entries(TAPE_PLACEMENTS).flatMap(([placement, how]) =>
  (Object.keys(SHAPES) as Shape[]).map((shapeName) => ({ placement, shapeName, how, ...SHAPES[shapeName](`tape ${placement}/${shapeName}`) })),
);
// A key on the command line a report names (mutate and drift print the command they ran).
const ARGUMENT_ROWS = (Object.keys(SHAPES) as Shape[]).map((shapeName) => ({
  placement: 'command argument',
  shapeName,
  ...SHAPES[shapeName](`command argument/${shapeName}`),
}));

// The AWS credentials the recording proxy signs Bedrock's requests with (from its environment):
// none of them, nor the signature they make, may reach an output either.
const AWS_CREDENTIALS = {
  accessKeyId: SHAPES['aws-access-key']('proxy credentials').key,
  secretAccessKey: tailFor('proxy secret access key', 40),
  sessionToken: tailFor('proxy session token', 120),
};
const CREDENTIAL_ROWS = [
  { placement: "the proxy's AWS access key id", secret: AWS_CREDENTIALS.accessKeyId.slice(4), key: AWS_CREDENTIALS.accessKeyId },
  { placement: "the proxy's AWS secret access key", secret: AWS_CREDENTIALS.secretAccessKey, key: AWS_CREDENTIALS.secretAccessKey },
  { placement: "the proxy's AWS session token", secret: AWS_CREDENTIALS.sessionToken, key: AWS_CREDENTIALS.sessionToken },
].map((row) => ({ ...row, shapeName: 'environment' }));

// Everything a leak could hide behind in an output: base64 fields decoded (gunzipped, as UTF-16).
function readable(text: string): string {
  const extra: string[] = [];
  for (const match of text.matchAll(/"base64":"([^"]*)"/g)) {
    const bytes = Buffer.from(match[1]!, 'base64');
    extra.push(bytes.toString('latin1'), bytes.toString('utf16le'));
    try {
      extra.push(gunzipSync(bytes).toString('latin1'));
    } catch {
      // not gzip
    }
  }
  // Escapes a reader (or a browser) decodes: JSON and JavaScript escapes, HTML character references.
  const unescaped = text
    .replace(/\\+u([0-9A-Fa-f]{4})/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\\+x([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/&#(\d{1,7});/g, (_match, decimal: string) => String.fromCodePoint(Number(decimal)))
    .replace(/&#x([0-9A-Fa-f]{1,6});/gi, (_match, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&(?:hyphen|dash);/g, '-');
  // Base64 anywhere, unwrapped from MIME lines, read at every alignment, and twice.
  const decodeRuns = (from: string): string[] => {
    const found: string[] = [];
    for (const match of from.replace(/\\r\\n|\r\n/g, '').matchAll(/[A-Za-z0-9+/_-]{16,}/g)) {
      for (let offset = 0; offset < 4; offset++) found.push(Buffer.from(match[0].slice(offset), 'base64').toString('latin1'));
    }
    return found;
  };
  const once = decodeRuns(text);
  extra.push(...once, ...once.flatMap(decodeRuns));
  // UTF-16 without its NULs, escaped (`\u0000`) or raw.
  const all = [text, decodeURIComponentSafe(text), unescaped, ...extra].join('\n');
  return `${all}\n${all.replaceAll('\u0000', '').replaceAll('\\u0000', '')}`;
}

function decodeURIComponentSafe(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (sequence) => Buffer.from(sequence.replace(/%/g, ''), 'hex').toString('latin1'));
}

// Every 8-character slice a leak would show, with its row: the key's secret part (the first 4
// characters of every tail are FAKE) and its base64. One pass over an output looks them all up.
const SLICE = 8;
const SLICES = new Map<string, string>();
for (const row of [...ROWS, ...TAPE_ROWS, ...ARGUMENT_ROWS, ...CREDENTIAL_ROWS]) {
  const base64 = Buffer.from(row.key).toString('base64');
  for (const source of [row.secret.slice(4), base64.slice(8, -4)]) {
    for (let at = 0; at + SLICE <= source.length; at += 4) SLICES.set(source.slice(at, at + SLICE), `${row.placement} × ${row.shapeName}`);
  }
}

function leaks(output: string): string[] {
  const text = readable(output);
  const found = new Set<string>();
  for (let at = 0; at + SLICE <= text.length; at++) {
    const row = SLICES.get(text.slice(at, at + SLICE));
    if (row !== undefined) found.add(row);
  }
  return [...found];
}

const dir = tempDir();

test('the leak check sees a key in every representation the rows use', () => {
  const row = ROWS.find((candidate) => candidate.shapeName === 'openai-legacy')!;
  const { key } = row;
  const written = [
    key,
    `x${key.slice(2)}`,
    encodeURIComponent(key).replace(/-/g, '%2D'),
    JSON.stringify(unicodeEscaped(key)),
    htmlEscaped(key),
    `QQQ${Buffer.from(key).toString('base64')}`,
    JSON.stringify(mimeWrapped(key)),
    JSON.stringify({ base64: gzipSync(key).toString('base64') }),
    JSON.stringify({ base64: Buffer.from(key, 'utf16le').toString('base64') }),
    JSON.stringify({ text: Buffer.from(key, 'utf16le').toString('utf8') }),
    Buffer.from(Buffer.from(key).toString('base64')).toString('base64'),
  ];
  for (const text of written) expect(leaks(`before ${text} after`), text).toEqual([`${row.placement} × ${row.shapeName}`]);
  expect(leaks(`before ${key.slice(0, 10)}… after`)).toEqual([]);
});

test('no key, in any placement and any shape, reaches the tape, a log, a summary, a drift report, inspect, verify, a snapshot or the fake history', async () => {
  const standIn = await startStandInUpstream((request) => {
    const row = ROWS[Number(request.headers['x-row'])]!;
    return row.how.response?.(row.key, request) ?? { headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
  });
  const tape = join(dir, 'tape.jsonl');
  const outputs: Record<string, string> = {};
  // The recording proxy re-signs Bedrock's requests with the credentials the AWS chain finds first.
  vi.stubEnv('AWS_ACCESS_KEY_ID', AWS_CREDENTIALS.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', AWS_CREDENTIALS.secretAccessKey);
  vi.stubEnv('AWS_SESSION_TOKEN', AWS_CREDENTIALS.sessionToken);
  vi.stubEnv('AWS_PROFILE', undefined);
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
  const requests = ROWS.map((row, index) => {
    const sent = row.how.request?.(row.key) ?? {};
    const body = sent.body === undefined ? Buffer.from(chat('hello')) : Buffer.from(sent.body);
    const headers: Record<string, string> = { 'content-type': 'application/json', ...sent.headers, 'x-row': String(index) };
    return { index, route: row.how.route ?? 'openai', path: sent.path ?? '/v1/chat/completions', headers, body };
  });
  const send = async (base: string) => {
    for (const request of requests) {
      const response = await fetch(`${base}/${request.route}${request.path}`, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
      });
      await response.arrayBuffer();
    }
  };
  try {
    // Record: every request is answered; each exchange is stored redacted or refused.
    const logged: string[] = [];
    const recorder = await startProxy({
      tape,
      mode: 'record',
      allowRecordInCi: true,
      keyHeaders: ['x-tenant'],
      upstreams: { openai: standIn.url, bedrock: standIn.url, azure: standIn.url, vertex: standIn.url },
      log: (line) => logged.push(line),
    });
    await send(recorder.url);
    const recorded = await recorder.close();
    expect(recorded.recorded + recorded.refused).toBe(ROWS.length);
    expect(standIn.received).toHaveLength(ROWS.length);
    // Bedrock's requests went out signed again with the proxy's own credentials, which are in play.
    const signed = standIn.received.filter((request) => request.url.startsWith('/model/'));
    expect(signed).toHaveLength(ROWS.filter((row) => row.how.route === 'bedrock').length);
    for (const request of signed) {
      expect(request.headers.authorization).toContain(`Credential=${AWS_CREDENTIALS.accessKeyId}/`);
      expect(request.headers['x-amz-security-token']).toBe(AWS_CREDENTIALS.sessionToken);
    }
    outputs['tape'] = readFileSync(tape, 'utf8');
    outputs['record log'] = logged.join('\n');
    outputs['record summary'] = JSON.stringify(recorded);

    // Replay: the refused requests miss, and each miss is explained.
    const replayLog: string[] = [];
    const replayer = await startProxy({
      tape,
      mode: 'replay',
      keyHeaders: ['x-tenant'],
      upstreams: { openai: standIn.url, bedrock: standIn.url, azure: standIn.url, vertex: standIn.url },
      log: (line) => replayLog.push(line),
    });
    await send(replayer.url);
    const replayed = await replayer.close();
    expect(replayed.misses).toBe(recorded.refused);
    expect(replayed.misses).toBeGreaterThan(ROWS.length / 2);
    outputs['replay log'] = replayLog.join('\n');
    outputs['replay summary'] = JSON.stringify(replayed, (_name, value: unknown) => (value instanceof Error ? { ...value, message: value.message } : value));

    // The CLI: drift (--json and --html) over the same requests, inspect and verify, on the tape
    // and on a tape a hand edit tainted with every key.
    writeFileSync(join(dir, 'requests.json'), JSON.stringify(requests.map((request) => ({ ...request, body: request.body.toString('base64') }))));
    writeFileSync(
      join(dir, 'driver.mjs'),
      `import { readFileSync } from 'node:fs';
const base = process.env.OPENAI_BASE_URL.replace(/\\/openai\\/v1$/, '');
for (const request of JSON.parse(readFileSync(process.argv[2], 'utf8'))) {
  const response = await fetch(base + '/' + request.route + request.path, { method: 'POST', headers: request.headers, body: Buffer.from(request.body, 'base64'), redirect: 'manual' });
  await response.arrayBuffer();
}
`,
    );
    const tainted = join(dir, 'tainted.jsonl');
    const [header, sample] = [loadTape(tape).header, loadTape(tape).exchanges[0]!.exchange];
    writeFileSync(
      tainted,
      serializeTape(
        header,
        ROWS.slice(0, Object.keys(SHAPES).length).map((row) => ({
          ...sample,
          request: { ...sample.request, path: `/v1/files/${row.key}`, body: { json: { note: row.key } } },
        })),
      ),
    );
    const cli = async (name: string, args: string[]) => {
      // An error main throws is printed with its stack by the bin: it is output too.
      const result = await runMain(args, { cwd: dir, env: { CI: 'true' } }).catch((error: Error) => ({
        stdout: '',
        stderr: `modeltape: unexpected error: ${error.stack ?? String(error)}`,
      }));
      outputs[name] = `${result.stdout}\n${result.stderr}`;
    };
    await Promise.all([
      cli('drift --json --html', [
        'drift',
        '--tape',
        tape,
        '--json',
        '--html',
        join(dir, 'drift.html'),
        '--',
        process.execPath,
        join(dir, 'driver.mjs'),
        join(dir, 'requests.json'),
      ]),
      cli('inspect', ['inspect', tape]),
      cli('inspect --json (tainted tape)', ['inspect', tainted, '--json']),
      cli('inspect (tainted tape)', ['inspect', tainted]),
      cli('verify (tainted tape)', ['verify', tainted]),
      cli('verify', ['verify', tape]),
    ]);
    expect(outputs['drift --json --html']).toContain('"drifted"');
    expect(outputs['verify (tainted tape)']).toContain('holds a credential');
    outputs['drift.html'] = readFileSync(join(dir, 'drift.html'), 'utf8');

    // Rendered snapshots, binary bodies included.
    const snapshots = join(dir, 'snapshots');
    requests.forEach((request, index) => {
      const binary = !/json|text|form/.test(request.headers['content-type'] ?? '') || request.headers['content-encoding'] !== undefined;
      assertRenderedSnapshot(
        {
          method: 'POST',
          url: `${ROUTES[request.route]}${request.path}`,
          headers: request.headers,
          body: binary ? new Uint8Array(request.body) : request.body.toString('utf8'),
        },
        `row-${index}`,
        { dir: snapshots, env: { MODELTAPE_UPDATE: '1' }, log: () => undefined },
      );
    });
    const files = readdirSync(join(snapshots, '__snapshots__'));
    expect(files).toHaveLength(ROWS.length);
    outputs['snapshots'] = files.map((file) => readFileSync(join(snapshots, '__snapshots__', file), 'utf8')).join('\n');

    // The FakeProvider's history of what it was sent and what each turn was shown.
    const fake = new FakeProvider();
    const chatRows = requests.filter(
      (request) =>
        request.route === 'openai' &&
        request.path === '/v1/chat/completions' &&
        request.headers['content-type'] === 'application/json' &&
        request.headers['content-encoding'] === undefined,
    );
    for (const _ of chatRows) fake.willSay('ok');
    for (const request of chatRows)
      await (await fake.fetch('https://api.openai.com/v1/chat/completions', { method: 'POST', headers: request.headers, body: request.body })).arrayBuffer();
    expect(fake.calls()).toHaveLength(chatRows.length);
    outputs['fake calls()'] = JSON.stringify(fake.calls());
    outputs['fake asked()'] = JSON.stringify(fake.asked());

    const leaked = Object.fromEntries(
      Object.entries(outputs)
        .map(([name, text]) => [name, leaks(text)] as const)
        .filter(([, found]) => found.length > 0),
    );
    expect(leaked).toEqual({});
    // Every output was looked at, and held something to look at.
    for (const [name, text] of Object.entries(outputs)) expect(text.length, name).toBeGreaterThan(0);
    expect(Object.keys(outputs)).toHaveLength(15);
    expect(existsSync(tape)).toBe(true);
  } finally {
    vi.unstubAllEnvs();
    await standIn.close();
  }
}, 180_000);

// A tape that holds keys (written by hand, as the recorder would refuse it) and a command line
// that names them: every report over it, in every format, masks them.
test('no key a tape holds, in any placement and shape, reaches any report format: mutate, report and drift (terminal, --json, --html), inspect, verify', async () => {
  const { tape, requests } = writeTapeByHand(
    dir,
    'held',
    TAPE_ROWS.map((row, index) => {
      const sent: { path?: string; json: unknown } = row.how.request?.(row.key, index) ?? { json: chatRequest(index) };
      return {
        ...(sent.path === undefined ? {} : { path: sent.path }),
        request: sent.json,
        response: row.how.response?.(row.key) ?? { json: completion({ content: 'ok' }) },
      };
    }),
  );
  expect(loadTape(tape).exchanges).toHaveLength(TAPE_ROWS.length);

  // The suite: every request as recorded (mutate's first run uses them all), or each one changed
  // a little (every request drifts from its recording). Its arguments name keys too.
  // Mutate's suite asks for the answers and tool calls only: each mutant is a run of its own.
  const answers = join(dir, 'answers.json');
  const all = JSON.parse(readFileSync(requests, 'utf8')) as unknown[];
  writeFileSync(answers, json(all.filter((_request, index) => ['answer text', 'tool call arguments'].includes(TAPE_ROWS[index]!.placement))));
  const script = writeReplayingSuite(dir);
  const notes = ARGUMENT_ROWS.map((row) => `--note=${row.key}`);
  const suite = [process.execPath, script, requests, ...notes];
  const outputs: Record<string, string> = {};
  const cli = async (name: string, args: string[]) => {
    const result = await runMain(args, { cwd: dir, env: { CI: 'true' } }).catch((error: Error) => ({
      code: -1,
      stdout: '',
      stderr: `modeltape: unexpected error: ${error.stack ?? String(error)}`,
    }));
    outputs[name] = `${result.stdout}\n${result.stderr}`;
    return result.code;
  };
  const mutate = ['mutate', '--tape', tape, '--operators', 'refusal,tool-argument-changed', '--max', '13', '--jobs', '2'];
  const mutateSuite = [process.execPath, script, answers, ...notes];
  const codes = [
    await cli('mutate', [...mutate, '--html', 'mutate.html', '--', ...mutateSuite]),
    await cli('mutate --json', [...mutate, '--json', '--', ...mutateSuite]),
    await cli('report', ['report', tape, '--html', 'report.html']),
    await cli('report --json', ['report', tape, '--json']),
    await cli('drift', ['drift', '--tape', tape, '--html', 'drift.html', '--', ...suite, '--drift']),
    await cli('drift --json', ['drift', '--tape', tape, '--json', '--', ...suite, '--drift']),
    await cli('inspect', ['inspect', tape]),
    await cli('inspect --json', ['inspect', tape, '--json']),
    await cli('verify', ['verify', tape]),
  ];
  // Mutate and report succeed; drift finds every request drifted; verify finds the keys.
  expect(codes).toEqual([0, 0, 0, 0, 1, 1, 0, 0, 1]);
  for (const page of ['mutate.html', 'report.html', 'drift.html']) outputs[page] = readFileSync(join(dir, page), 'utf8');
  const mutated = JSON.parse(outputs['mutate --json']!.slice(0, outputs['mutate --json']!.lastIndexOf('}') + 1)) as { counts: Record<string, number> };
  expect(mutated.counts.survived).toBe(13);

  const leaked = Object.fromEntries(
    Object.entries(outputs)
      .map(([name, text]) => [name, leaks(text)] as const)
      .filter(([, found]) => found.length > 0),
  );
  expect(leaked).toEqual({});
  // Every output had keys to show, and showed each as its marker.
  const marker = /\[[a-z0-9-]+(?: [a-z0-9-]+)* \d+ chars\]/;
  for (const [name, text] of Object.entries(outputs)) expect(text, name).toMatch(marker);
  expect(Object.keys(outputs)).toHaveLength(12);
}, 180_000);
