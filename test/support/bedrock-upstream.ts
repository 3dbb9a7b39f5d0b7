import { createHash, createHmac, timingSafeEqual, type Hash, type Hmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec, type MessageHeaders } from '@smithy/core/event-streams';
import { HttpRequest } from '@smithy/core/protocols';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HeaderBag, HttpRequest as HttpRequestShape } from '@smithy/types';

// A loopback stand-in for Amazon Bedrock Runtime (bedrock-runtime.<region>.amazonaws.com) that
// checks SigV4 the way AWS does and answers in Bedrock's wire shapes, from the captured samples
// under test/fixtures/bedrock/ (see its README.md for where each came from).

const FIXTURES = new URL('../fixtures/bedrock/', import.meta.url);

function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as T;
}

interface ErrorFixture {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}
interface EventFixture {
  headers: Record<string, string>;
  payload: Record<string, unknown>;
}
interface InvokeFixture {
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Bedrock's error answers as the service sends them (status, `x-amzn-errortype`, `{"message"}` body). */
export const BEDROCK_ERRORS = fixture<{
  throttling: ErrorFixture;
  validation: ErrorFixture;
  malformedInput: ErrorFixture;
  invalidSignature: ErrorFixture;
  unrecognizedClient: ErrorFixture;
  missingAuthenticationToken: ErrorFixture;
  unknownOperation: ErrorFixture;
  modelStreamErrorFrameBase64: string;
}>('errors.json');

/** The four runtime operations the stand-in serves, named by their path suffix. */
export const BEDROCK_OPERATIONS = ['converse', 'converse-stream', 'invoke', 'invoke-with-response-stream'] as const;
export type BedrockOperation = (typeof BEDROCK_OPERATIONS)[number];

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;

/** What a test scripts for one request. */
export type BedrockAnswer =
  /** The captured sample for the operation (for InvokeModel: the Claude or the Nova one, by the body's shape). */
  | { kind: 'sample' }
  /** The operation's success shape carrying this text (streams split it into several deltas). */
  | { kind: 'text'; text: string }
  /** Converse only: a `toolUse` block and `stopReason: 'tool_use'`. */
  | { kind: 'tool-use'; name: string; input: Record<string, unknown>; toolUseId?: string }
  /** 429 ThrottlingException. */
  | { kind: 'throttling' }
  /** 400 ValidationException (the captured message unless given). */
  | { kind: 'validation'; message?: string }
  /** Streams only: a few events, then Bedrock's `modelStreamErrorException` frame (captured bytes). */
  | { kind: 'stream-error' };

/** A request as the script sees it: the operation, the model id decoded, the JSON body. */
export interface BedrockCall {
  operation: BedrockOperation;
  /** URL-decoded (`anthropic.claude-3-5-sonnet-20240620-v1:0`, or a whole ARN). */
  modelId: string;
  body: Record<string, unknown>;
  /** The text of the last user message, whichever body shape carried it ('' if none). */
  prompt: string;
}

export interface BedrockUpstreamOptions {
  /** The access key id the stand-in knows; any other gets UnrecognizedClientException. */
  accessKeyId: string;
  secretAccessKey: string;
  /** When set, requests must carry it as `x-amz-security-token`; when unset, they must carry none. */
  sessionToken?: string;
  /** @default 'us-east-1' */
  region?: string;
  /** @default 'bedrock' (Bedrock Runtime's signing name) */
  service?: string;
  /**
   * Decides each answer. Returning undefined (or leaving this out) answers by the prompt: a
   * prompt starting `Busy` is throttled, `Invalid` gets a ValidationException, `Break` a stream
   * that fails midway, `Use a tool` a tool use (Converse); anything else the captured sample.
   */
  answer?: (call: BedrockCall) => BedrockAnswer | undefined;
  /** The clock `x-amz-date` is checked against (AWS allows 5 minutes either way). @default () => new Date() */
  now?: () => Date;
  /** Pause between the frames of a stream, so streaming is real. @default 5 */
  frameGapMs?: number;
}

/** One request as the stand-in received it, and what became of it. */
export interface BedrockReceivedRequest {
  method: string;
  /** Exactly as on the wire, still percent-encoded (`/model/…v1%3A0/converse`). */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  operation?: BedrockOperation;
  modelId?: string;
  /** The error type it was refused with (`InvalidSignatureException`, …), or undefined if answered. */
  rejectedWith?: string;
}

export interface BedrockUpstream {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The `host` a request must have been signed for: `127.0.0.1:PORT`. */
  host: string;
  /** Every request received, in order. */
  requests: BedrockReceivedRequest[];
  close(): Promise<void>;
}

/**
 * Starts the stand-in on 127.0.0.1, port 0, HTTP/1.1. Every request must be SigV4-signed for this
 * host, region and service with the given credentials; otherwise it is refused with AWS's own
 * error (403 InvalidSignatureException, UnrecognizedClientException, MissingAuthenticationToken).
 */
export async function startBedrockUpstream(options: BedrockUpstreamOptions): Promise<BedrockUpstream> {
  const requests: BedrockReceivedRequest[] = [];
  const settings = {
    region: options.region ?? 'us-east-1',
    service: options.service ?? 'bedrock',
    now: options.now ?? (() => new Date()),
    frameGapMs: options.frameGapMs ?? 5,
  };
  let host = '';
  let requestCount = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry: BedrockReceivedRequest = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        headers: request.headers,
        body: body.toString('utf8'),
      };
      requests.push(entry);
      const requestId = `fake-bedrock-request-${requestCount++}`;
      void handle(entry, body, requestId, response).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });

  async function handle(entry: BedrockReceivedRequest, body: Buffer, requestId: string, response: ServerResponse): Promise<void> {
    const refusal = await checkSignature(entry, body, { ...options, ...settings, host });
    if (refusal !== undefined) {
      entry.rejectedWith = refusal.type;
      return sendError(response, requestId, refusal.error, refusal.message);
    }
    const route = ROUTE.exec(entry.path.split('?')[0]!);
    if (route === null || entry.method !== 'POST') {
      entry.rejectedWith = 'UnknownOperationException';
      return sendError(response, requestId, BEDROCK_ERRORS.unknownOperation);
    }
    const operation = route[2] as BedrockOperation;
    const modelId = decodeURIComponent(route[1]!);
    Object.assign(entry, { operation, modelId });
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(entry.body || '{}') as Record<string, unknown>;
    } catch {
      entry.rejectedWith = 'ValidationException';
      return sendError(response, requestId, BEDROCK_ERRORS.malformedInput);
    }
    const call: BedrockCall = { operation, modelId, body: parsed, prompt: lastPrompt(parsed) };
    const answer = options.answer?.(call) ?? answerByPrompt(call);
    if (answer.kind === 'throttling' || answer.kind === 'validation') {
      entry.rejectedWith = answer.kind === 'throttling' ? 'ThrottlingException' : 'ValidationException';
      const error = answer.kind === 'throttling' ? BEDROCK_ERRORS.throttling : BEDROCK_ERRORS.validation;
      return sendError(response, requestId, error, answer.kind === 'validation' ? answer.message : undefined);
    }
    switch (operation) {
      case 'converse':
        return sendJson(response, requestId, 200, {}, converseBody(answer));
      case 'invoke': {
        const { headers, body: answerBody } = invokeAnswer(call, answer);
        return sendJson(response, requestId, 200, headers, answerBody);
      }
      case 'converse-stream':
        return sendFrames(response, requestId, {}, converseStreamFrames(answer), settings.frameGapMs);
      case 'invoke-with-response-stream':
        return sendFrames(response, requestId, { 'x-amzn-bedrock-content-type': 'application/json' }, invokeStreamFrames(call, answer), settings.frameGapMs);
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `http://${host}`,
    host,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// --- SigV4 -------------------------------------------------------------------------------------

/** SHA-256 (HMAC-SHA-256 when given a secret) for `SignatureV4`, from node:crypto. */
export class NodeSha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = NodeSha256.create(secret);
  }
  private static create(secret?: string | ArrayBuffer | ArrayBufferView): Hash | Hmac {
    if (secret === undefined) return createHash('sha256');
    const key =
      typeof secret === 'string' ? secret : ArrayBuffer.isView(secret) ? Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength) : Buffer.from(secret);
    return createHmac('sha256', key);
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(
      typeof data === 'string' ? data : ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data),
    );
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = NodeSha256.create(this.secret);
  }
}

/** The signer, made to keep the canonical request and string to sign for AWS's mismatch message. */
class VerifyingSigner extends SignatureV4 {
  canonicalRequest = '';
  stringToSign = '';
  protected override createCanonicalRequest(request: HttpRequestShape, canonicalHeaders: HeaderBag, payloadHash: string): string {
    this.canonicalRequest = super.createCanonicalRequest(request, canonicalHeaders, payloadHash);
    return this.canonicalRequest;
  }
  protected override async createStringToSign(
    longDate: string,
    credentialScope: string,
    canonicalRequest: string,
    algorithmIdentifier: string,
  ): Promise<string> {
    this.stringToSign = await super.createStringToSign(longDate, credentialScope, canonicalRequest, algorithmIdentifier);
    return this.stringToSign;
  }
}

interface Refusal {
  type: string;
  error: ErrorFixture;
  message?: string;
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;_.-]+), ?Signature=([0-9a-f]{64})$/;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** Checks a request as AWS would; returns the refusal, or undefined if the signature holds. */
async function checkSignature(
  entry: BedrockReceivedRequest,
  body: Buffer,
  expected: BedrockUpstreamOptions & { region: string; service: string; now: () => Date; host: string },
): Promise<Refusal | undefined> {
  const invalid = (message?: string): Refusal => ({ type: 'InvalidSignatureException', error: BEDROCK_ERRORS.invalidSignature, message });
  const authorization = header(entry.headers, 'authorization');
  if (authorization === undefined) return { type: 'MissingAuthenticationTokenException', error: BEDROCK_ERRORS.missingAuthenticationToken };
  const parts = AUTHORIZATION.exec(authorization);
  if (parts === null) return invalid(`Authorization header is not a SigV4 header: ${authorization.split(' ')[0]}`);
  const [, accessKeyId, scopeDate, region, service, signedHeaderList, signature] = parts as unknown as string[];
  const sessionToken = header(entry.headers, 'x-amz-security-token');
  if (accessKeyId !== expected.accessKeyId || sessionToken !== expected.sessionToken)
    return { type: 'UnrecognizedClientException', error: BEDROCK_ERRORS.unrecognizedClient };
  if (region !== expected.region) return invalid(`Credential should be scoped to a valid region. `);
  if (service !== expected.service) return invalid(`Credential should be scoped to correct service: '${expected.service}'. `);
  const amzDate = header(entry.headers, 'x-amz-date') ?? '';
  const signedAt = parseAmzDate(amzDate);
  if (signedAt === undefined || !amzDate.startsWith(scopeDate!))
    return invalid(
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${scopeDate}' != '${amzDate.slice(0, 8)}', from '${amzDate}'.`,
    );
  const now = expected.now();
  const skew = 5 * 60_000;
  if (signedAt.getTime() < now.getTime() - skew)
    return invalid(`Signature expired: ${amzDate} is now earlier than ${formatAmzDate(new Date(now.getTime() - skew))} (${formatAmzDate(now)} - 5 min.)`);
  if (signedAt.getTime() > now.getTime() + skew)
    return invalid(
      `Signature not yet current: ${amzDate} is still later than ${formatAmzDate(new Date(now.getTime() + skew))} (${formatAmzDate(now)} + 5 min.)`,
    );

  const signedNames = signedHeaderList!.split(';');
  if (!signedNames.includes('host') || !signedNames.includes('x-amz-date')) return invalid();
  const headers: Record<string, string> = {};
  for (const name of signedNames) {
    // The host is the endpoint's own: a request signed for another host fails here, as at AWS.
    const value = name === 'host' ? expected.host : header(entry.headers, name);
    if (value !== undefined) headers[name] = value;
  }
  const bodyHash = createHash('sha256').update(body).digest('hex');
  if (headers['x-amz-content-sha256'] !== undefined && headers['x-amz-content-sha256'] !== bodyHash) return invalid();
  const [path, search = ''] = entry.path.split(/\?(.*)/s) as [string, string?];
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(search)) {
    const previous = query[key];
    query[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  const signer = new VerifyingSigner({
    service: expected.service,
    region: expected.region,
    credentials: { accessKeyId: expected.accessKeyId, secretAccessKey: expected.secretAccessKey, sessionToken },
    sha256: NodeSha256,
    // The signer escapes the path once more: `%3A` on the wire becomes `%253A` in the canonical
    // request, AWS's double encoding for every service but S3.
    uriEscapePath: true,
    // The payload hash comes from the body (or the signed x-amz-content-sha256, checked above);
    // never add a header the client did not sign.
    applyChecksum: false,
  });
  const [hostname, port] = expected.host.split(':') as [string, string];
  const recomputed = await signer.sign(new HttpRequest({ method: entry.method, protocol: 'http:', hostname, port: Number(port), path, query, headers, body }), {
    signingDate: signedAt,
    signableHeaders: new Set(signedNames),
  });
  const ours = /Signature=([0-9a-f]{64})$/.exec(String(recomputed.headers.authorization))?.[1] ?? '';
  const theirs = Buffer.from(signature!);
  if (ours.length === theirs.length && timingSafeEqual(Buffer.from(ours), theirs)) return undefined;
  return invalid(
    `${BEDROCK_ERRORS.invalidSignature.body.message as string}\n\nThe Canonical String for this request should have been\n'${signer.canonicalRequest}'\n\nThe String-to-Sign should have been\n'${signer.stringToSign}'\n`,
  );
}

function parseAmzDate(value: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (match === null) return undefined;
  const [, year, month, day, hours, minutes, seconds] = match.map(Number) as number[];
  return new Date(Date.UTC(year!, month! - 1, day!, hours!, minutes!, seconds!));
}

function formatAmzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

// --- Answers -----------------------------------------------------------------------------------

function lastPrompt(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: string; content?: unknown }>) : [];
  const last = messages.filter((message) => message.role === 'user').at(-1);
  if (typeof last?.content === 'string') return last.content;
  if (!Array.isArray(last?.content)) return '';
  return (last.content as Array<{ text?: unknown }>).map((block) => (typeof block.text === 'string' ? block.text : '')).join('');
}

function answerByPrompt(call: BedrockCall): BedrockAnswer {
  if (call.prompt.startsWith('Busy')) return { kind: 'throttling' };
  if (call.prompt.startsWith('Invalid')) return { kind: 'validation' };
  if (call.prompt.startsWith('Break') && call.operation.endsWith('stream')) return { kind: 'stream-error' };
  if (call.prompt.startsWith('Use a tool') && call.operation === 'converse')
    return { kind: 'tool-use', name: 'get_weather', input: { city: 'Paris' }, toolUseId: 'tooluse_fake_0' };
  return { kind: 'sample' };
}

/** Splits a text into a few deltas, each word with the space before it. */
function deltas(text: string): string[] {
  return text.split(/(?=\s)/).filter((piece) => piece.length > 0);
}

const PADDING = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Bedrock pads every event payload with `p`, a prefix of this alphabet, to hide the text's length. */
function padded(payload: Record<string, unknown>): Record<string, unknown> {
  return { ...payload, p: PADDING.slice(0, ((JSON.stringify(payload).length * 7) % 50) + 2) };
}

function converseBody(answer: BedrockAnswer): Record<string, unknown> {
  if (answer.kind === 'tool-use') {
    const toolUse = { toolUseId: answer.toolUseId ?? 'tooluse_fake_0', name: answer.name, input: answer.input };
    return {
      ...fixture<Record<string, unknown>>('converse-tool-use-response.json'),
      output: { message: { role: 'assistant', content: [{ toolUse }] } },
      metrics: { latencyMs: 412 },
    };
  }
  const sample = fixture<Record<string, unknown>>('converse-response.json');
  if (answer.kind !== 'text') return sample;
  return { ...sample, output: { message: { role: 'assistant', content: [{ text: answer.text }] } } };
}

function isClaudeBody(body: Record<string, unknown>): boolean {
  return typeof body.anthropic_version === 'string';
}

function invokeAnswer(call: BedrockCall, answer: BedrockAnswer): InvokeFixture {
  if (isClaudeBody(call.body)) {
    const sample = fixture<InvokeFixture>('invoke-claude-response.json');
    if (answer.kind !== 'text') return sample;
    return { headers: sample.headers, body: { ...sample.body, content: [{ type: 'text', text: answer.text }] } };
  }
  const sample = fixture<InvokeFixture>('invoke-nova-response.json');
  if (answer.kind !== 'text') return sample;
  return { headers: sample.headers, body: { ...sample.body, output: { message: { role: 'assistant', content: [{ text: answer.text }] } } } };
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function eventFrame(event: EventFixture): Uint8Array {
  const headers: MessageHeaders = {};
  for (const [name, value] of Object.entries(event.headers)) headers[name] = { type: 'string', value };
  return codec.encode({ headers, body: fromUtf8(JSON.stringify(event.payload)) });
}

function event(type: string, payload: Record<string, unknown>): EventFixture {
  return { headers: { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' }, payload: padded(payload) };
}

const STREAM_ERROR_FRAME = Buffer.from(BEDROCK_ERRORS.modelStreamErrorFrameBase64, 'base64');

function converseStreamFrames(answer: BedrockAnswer): Uint8Array[] {
  const sample = fixture<{ events: EventFixture[] }>('converse-stream-events.json').events;
  if (answer.kind === 'stream-error') return [...sample.slice(0, 3).map(eventFrame), STREAM_ERROR_FRAME];
  if (answer.kind !== 'text') return sample.map(eventFrame);
  const pieces = deltas(answer.text);
  return [
    event('messageStart', { role: 'assistant' }),
    ...pieces.map((text) => event('contentBlockDelta', { contentBlockIndex: 0, delta: { text } })),
    event('contentBlockStop', { contentBlockIndex: 0 }),
    event('messageStop', { stopReason: 'end_turn' }),
    event('metadata', { metrics: { latencyMs: 318 }, usage: { inputTokens: 12, outputTokens: pieces.length, totalTokens: 12 + pieces.length } }),
  ].map(eventFrame);
}

/** An InvokeModelWithResponseStream `chunk`: the model's own event, JSON then base64, in `bytes`. */
function chunk(modelEvent: Record<string, unknown>): EventFixture {
  return event('chunk', { bytes: Buffer.from(JSON.stringify(modelEvent)).toString('base64') });
}

function invokeStreamFrames(call: BedrockCall, answer: BedrockAnswer): Uint8Array[] {
  const invocationMetrics = (outputTokens: number) => ({ inputTokenCount: 12, outputTokenCount: outputTokens, invocationLatency: 640, firstByteLatency: 310 });
  if (!isClaudeBody(call.body)) {
    // Nova streams its Converse-like events inside chunks; the last carries the invocation metrics.
    const pieces = deltas(answer.kind === 'text' ? answer.text : 'Hello from Nova.');
    const events = [
      chunk({ messageStart: { role: 'assistant' } }),
      ...pieces.map((text) => chunk({ contentBlockDelta: { delta: { text }, contentBlockIndex: 0 } })),
      chunk({ contentBlockStop: { contentBlockIndex: 0 } }),
      chunk({ messageStop: { stopReason: 'end_turn' } }),
      chunk({ metadata: { usage: { inputTokens: 12, outputTokens: pieces.length } }, 'amazon-bedrock-invocationMetrics': invocationMetrics(pieces.length) }),
    ].map(eventFrame);
    return answer.kind === 'stream-error' ? [...events.slice(0, 2), STREAM_ERROR_FRAME] : events;
  }
  const sample = fixture<{ events: EventFixture[] }>('invoke-stream-claude-events.json').events;
  if (answer.kind === 'stream-error') return [...sample.slice(0, 3).map(eventFrame), STREAM_ERROR_FRAME];
  if (answer.kind !== 'text') return sample.map(eventFrame);
  const pieces = deltas(answer.text);
  return [
    chunk({
      type: 'message_start',
      message: {
        model: 'claude-sonnet-4-5-20250929',
        id: 'msg_bdrk_fake_0',
        type: 'message',
        role: 'assistant',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    }),
    chunk({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ...pieces.map((text) => chunk({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    chunk({ type: 'content_block_stop', index: 0 }),
    chunk({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: pieces.length } }),
    chunk({ type: 'message_stop', 'amazon-bedrock-invocationMetrics': invocationMetrics(pieces.length) }),
  ].map(eventFrame);
}

// --- Writing -----------------------------------------------------------------------------------

function sendJson(response: ServerResponse, requestId: string, status: number, headers: Record<string, string>, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body));
  response.writeHead(status, { 'content-type': 'application/json', ...headers, 'content-length': bytes.length, 'x-amzn-requestid': requestId });
  response.end(bytes);
}

function sendError(response: ServerResponse, requestId: string, error: ErrorFixture, message?: string): void {
  sendJson(response, requestId, error.status, error.headers, message === undefined ? error.body : { ...error.body, message });
}

async function sendFrames(response: ServerResponse, requestId: string, headers: Record<string, string>, frames: Uint8Array[], gapMs: number): Promise<void> {
  response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', ...headers, 'x-amzn-requestid': requestId });
  response.flushHeaders();
  for (const frame of frames) {
    await new Promise((resolve) => setTimeout(resolve, gapMs));
    if (response.destroyed) return;
    response.write(frame);
  }
  response.end();
}
