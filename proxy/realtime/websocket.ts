// The one file that loads `ws`: the WebSocket framing of a proxied Realtime session, both ends, and
// of the FakeProvider's Realtime sessions (their server end). It opens no socket itself: the
// upstream end is given its connection by proxy/http/upstream.ts.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { excerpt } from '../../core/internal.js';
import type { ClientRequestArgs } from 'node:http';

/** One end of a WebSocket, as the Realtime bridge uses it: messages (text or binary), and a close. */
export interface MessageSocket {
  send(data: string | Buffer, binary?: boolean): void;
  close(code?: number, reason?: string): void;
  /** Drops the connection at once (a proxy closing, a chaos fault). */
  terminate(): void;
  onMessage(listener: (data: Buffer, binary: boolean) => void): void;
  onClose(listener: (code: number, reason: string) => void): void;
  onError(listener: (error: Error) => void): void;
}

type Ws = typeof import('ws');
let loading: Promise<Ws> | undefined;

function loadWs(): Promise<Ws> {
  loading ??= import('ws');
  return loading;
}

/**
 * Completes a client's upgrade on this server: the client's end of the session. `headers` go on
 * the 101 answer (a FakeProvider's marker). `chooseProtocol` picks the subprotocol to answer of
 * those the client offered (false: none); without it, the first offered. Rejects when the
 * handshake is not a WebSocket one ws accepts (it has answered the client 400) or the client left.
 */
export async function acceptWebSocket(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  maxPayload: number,
  headers: Record<string, string> = {},
  chooseProtocol?: (offered: ReadonlySet<string>) => string | false,
): Promise<MessageSocket> {
  const ws = await loadWs();
  const server = new ws.WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload,
    ...(chooseProtocol === undefined ? {} : { handleProtocols: (offered: Set<string>) => chooseProtocol(offered) }),
  });
  server.on('headers', (lines) => {
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  });
  return new Promise((resolve, reject) => {
    const gone = (): void => reject(new Error('the client closed the connection before its WebSocket opened'));
    socket.once('close', gone);
    server.on('wsClientError', (error, clientSocket) => {
      clientSocket.destroy();
      reject(error);
    });
    server.handleUpgrade(request, socket, head, (client) => {
      socket.off('close', gone);
      resolve(wrap(client));
    });
  });
}

/** What an upstream answered the upgrade with, and its end of the session. */
export interface UpstreamWebSocket {
  socket: MessageSocket;
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Opens a WebSocket to `url` over the connection `connect` makes, offering `protocols` (the
 * subprotocol the upstream chose is in the answer's headers). Rejects with the upstream's status
 * when it refuses the upgrade (a 401 for a bad key, a 404 for a model it does not know).
 */
export async function connectWebSocket(
  url: string,
  headers: Record<string, string>,
  connect: (options: ClientRequestArgs) => Socket,
  maxPayload: number,
  protocols: readonly string[] = [],
): Promise<UpstreamWebSocket> {
  const ws = await loadWs();
  return new Promise((resolve, reject) => {
    const upstream = new ws.WebSocket(url, [...protocols], {
      headers,
      perMessageDeflate: false,
      createConnection: connect as never,
      handshakeTimeout: 30_000,
      maxPayload,
    });
    let answered: IncomingMessage | undefined;
    upstream.once('upgrade', (response) => {
      answered = response;
    });
    // Wrapped at once: the upstream's first message may come with its 101.
    const wrapped = wrap(upstream);
    upstream.once('open', () => resolve({ socket: wrapped, status: answered?.statusCode ?? 101, headers: answered?.headers ?? {} }));
    upstream.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        reject(
          Object.assign(
            // Masked before it is cut: a refusal may quote the key it was sent, and a key cut short is no longer one.
            new Error(`the upstream refused the WebSocket upgrade with ${response.statusCode}: ${excerpt(Buffer.concat(chunks).toString('utf8'), 500)}`),
            {
              status: response.statusCode,
            },
          ),
        ),
      );
    });
    upstream.once('error', reject);
  });
}

// Messages are taken from the moment the socket is wrapped: a server that speaks first (a
// Realtime session.created in the same packet as its 101) is heard before anyone listens.
function wrap(socket: import('ws').WebSocket): MessageSocket {
  let listener: ((data: Buffer, binary: boolean) => void) | undefined;
  const held: Array<[Buffer, boolean]> = [];
  socket.on('message', (data, binary) => {
    const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    if (listener === undefined) held.push([bytes, binary]);
    else listener(bytes, binary);
  });
  return {
    send: (data, binary = false) => {
      if (socket.readyState === socket.OPEN) socket.send(data, { binary });
    },
    close: (code, reason) => {
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, reason);
    },
    terminate: () => socket.terminate(),
    onMessage: (given) => {
      listener = given;
      for (const [bytes, binary] of held.splice(0)) given(bytes, binary);
    },
    onClose: (given) => socket.on('close', (code, reason) => given(code, reason.toString('utf8'))),
    onError: (given) => socket.on('error', given),
  };
}
