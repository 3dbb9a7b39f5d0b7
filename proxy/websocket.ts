// The one file that loads `ws`: the WebSocket framing of a proxied Realtime session, both ends. It
// opens no socket itself: the upstream end is given its connection by proxy/upstream.ts.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ClientRequestArgs } from 'node:http';

/** One end of a WebSocket, as the Realtime bridge uses it: text messages, and a close. */
export interface MessageSocket {
  send(text: string): void;
  close(code?: number, reason?: string): void;
  onMessage(listener: (text: string, binary: boolean) => void): void;
  onClose(listener: (code: number, reason: string) => void): void;
  onError(listener: (error: Error) => void): void;
}

type Ws = typeof import('ws');
let loading: Promise<Ws> | undefined;

function loadWs(): Promise<Ws> {
  loading ??= import('ws');
  return loading;
}

/** Completes a client's upgrade on this server: the client's end of the session. */
export async function acceptWebSocket(request: IncomingMessage, socket: Duplex, head: Buffer, headers: Record<string, string> = {}): Promise<MessageSocket> {
  const ws = await loadWs();
  const server = new ws.WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('headers', (lines: string[]) => {
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  });
  return new Promise((resolve) => {
    server.handleUpgrade(request, socket, head, (client) => resolve(wrap(client)));
  });
}

/** What an upstream answered the upgrade with, and its end of the session. */
export interface UpstreamWebSocket {
  socket: MessageSocket;
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Opens a WebSocket to `url` over the connection `connect` makes. Rejects with the upstream's
 * status when it refuses the upgrade (a 401 for a bad key, a 404 for a model it does not know).
 */
export async function connectWebSocket(
  url: string,
  headers: Record<string, string>,
  connect: (options: ClientRequestArgs) => Socket,
): Promise<UpstreamWebSocket> {
  const ws = await loadWs();
  return new Promise((resolve, reject) => {
    const upstream = new ws.WebSocket(url, { headers, perMessageDeflate: false, createConnection: connect as never, handshakeTimeout: 30_000 });
    let answered: IncomingMessage | undefined;
    upstream.once('upgrade', (response) => {
      answered = response;
    });
    upstream.once('open', () => resolve({ socket: wrap(upstream), status: answered?.statusCode ?? 101, headers: answered?.headers ?? {} }));
    upstream.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        reject(
          Object.assign(
            new Error(`the upstream refused the WebSocket upgrade with ${response.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 500)}`),
            { status: response.statusCode },
          ),
        ),
      );
    });
    upstream.once('error', reject);
  });
}

// Messages are taken from the moment the socket opens: a server that speaks first (a Realtime
// session.created in the same packet as its 101) is heard before anyone has asked to listen.
function wrap(socket: import('ws').WebSocket): MessageSocket {
  let listener: ((text: string, binary: boolean) => void) | undefined;
  const held: Array<[string, boolean]> = [];
  socket.on('message', (data, binary) => {
    const text = Buffer.isBuffer(data)
      ? data.toString('utf8')
      : Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data).toString('utf8');
    if (listener === undefined) held.push([text, binary]);
    else listener(text, binary);
  });
  return {
    send: (text) => {
      if (socket.readyState === socket.OPEN) socket.send(text);
    },
    close: (code, reason) => {
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, reason);
    },
    onMessage: (given) => {
      listener = given;
      for (const [text, binary] of held.splice(0)) given(text, binary);
    },
    onClose: (listener) => socket.on('close', (code, reason) => listener(code, reason.toString('utf8'))),
    onError: (listener) => socket.on('error', listener),
  };
}
