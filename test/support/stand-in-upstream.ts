import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const FIXTURES = new URL('../fixtures/samples/', import.meta.url);

/** The bytes of a captured sample under test/fixtures/samples. */
export function sample(path: string): Buffer {
  return readFileSync(new URL(path, FIXTURES));
}

/** SSE events of a captured sample, each with its terminating blank line. */
export function sseFrames(path: string): string[] {
  return sample(path)
    .toString('utf8')
    .split(/(?<=\n\n)/)
    .filter((frame) => frame.length > 0);
}

export interface StandInReply {
  status?: number;
  headers?: Record<string, string | string[]>;
  /** A plain body. */
  body?: Buffer | string;
  /** Or frames written one by one; `beforeFrame(i)` may hold frame i back until it resolves. */
  frames?: Array<string | Buffer>;
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface StandInUpstream {
  url: string;
  /** Every request received, in order. */
  received: ReceivedRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** Called before each frame of a streamed reply is written. */
  beforeFrame: (index: number) => Promise<void> | void;
  close(): Promise<void>;
}

/**
 * A local stand-in for a provider, on port 0. `reply` decides each answer from the request;
 * the default serves the real captured samples: OpenAI chat (plain, text stream, tool-call
 * stream) and Anthropic messages (plain, text stream, tool-use stream).
 */
export async function startStandInUpstream(reply: (request: ReceivedRequest) => StandInReply = samplesReply): Promise<StandInUpstream> {
  const received: ReceivedRequest[] = [];
  let connections = 0;
  const standIn: StandInUpstream = {
    url: '',
    received,
    connections: () => connections,
    beforeFrame: () => undefined,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const entry: ReceivedRequest = {
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(entry);
      const answer = reply(entry);
      if (answer.frames) {
        response.writeHead(answer.status ?? 200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...answer.headers });
        response.flushHeaders();
        for (const [index, frame] of answer.frames.entries()) {
          await standIn.beforeFrame(index);
          response.write(frame);
        }
        response.end();
        return;
      }
      const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : (answer.body ?? Buffer.alloc(0));
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', 'content-length': body.length, ...answer.headers });
      response.end(body);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}

/** Serves the captured samples by endpoint and by whether the request streams or offers tools. */
export function samplesReply(request: ReceivedRequest): StandInReply {
  const body = request.body ? (JSON.parse(request.body) as { stream?: boolean; tools?: unknown[] }) : {};
  const path = request.url.split('?')[0];
  const headers = { 'x-request-id': 'req_standin_0001', 'openai-organization': 'org-standin-secret', 'set-cookie': '__cf_bm=standin; path=/' };
  if (path === '/v1/chat/completions') {
    if (body.stream) return { headers, frames: sseFrames(body.tools ? 'openai/chat-stream-tool-call.sse' : 'openai/chat-stream-text.sse') };
    return { headers, body: sample('openai/chat-completion.json') };
  }
  if (path === '/v1/messages') {
    const anthropicHeaders = { 'request-id': 'req_standin_0002', 'anthropic-organization-id': 'standin-org-id' };
    if (body.stream) return { headers: anthropicHeaders, frames: sseFrames(body.tools ? 'anthropic/stream-tool-use.sse' : 'anthropic/stream-text.sse') };
    return { headers: anthropicHeaders, body: sample('anthropic/message.json') };
  }
  return { status: 404, body: JSON.stringify({ error: { message: `stand-in has no route ${path}`, type: 'invalid_request_error', param: null, code: null } }) };
}

/**
 * A local forward proxy (think cntlm or a corporate agent on 127.0.0.1:3128) that records what
 * it hears and forwards nothing: a CONNECT is answered as established, anything else with 502.
 */
export async function startForwardProxyStandIn(): Promise<{ url: string; heard: string[]; close(): Promise<void> }> {
  const heard: string[] = [];
  const server = createServer((request, response) => {
    heard.push(`${request.method} ${request.url}`);
    response.writeHead(502).end();
  });
  server.on('connect', (request, socket) => {
    heard.push(`CONNECT ${request.url}`);
    socket.end('HTTP/1.1 200 Connection Established\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    heard,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
