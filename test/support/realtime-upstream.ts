// A stand-in for OpenAI's Realtime API over WebSocket, on port 0: the event protocol as the
// published docs give it (GA event names), with random ids as the real server draws them.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export interface RealtimeUpstream {
  url: string;
  /** The upgrade requests it accepted: their URL and headers. */
  upgrades: Array<{ url: string; headers: IncomingHttpHeaders }>;
  /** Every client event it received. */
  received: Array<Record<string, unknown>>;
  connections(): number;
  close(): Promise<void>;
}

export async function startRealtimeUpstream(): Promise<RealtimeUpstream> {
  const upgrades: RealtimeUpstream['upgrades'] = [];
  const received: RealtimeUpstream['received'] = [];
  let connections = 0;
  const http = createServer((_request, response) => response.writeHead(404).end());
  http.on('connection', () => connections++);
  // As OpenAI does: `realtime` is the subprotocol it speaks, chosen when a client offers it.
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (offered) => (offered.has('realtime') ? 'realtime' : false) });
  http.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    // The key in `Authorization`, or as a browser sends it: the subprotocol `openai-insecure-api-key.<key>`.
    const offered = String(request.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((protocol) => protocol.trim());
    const key =
      String(request.headers.authorization ?? '').startsWith('Bearer sk-') || offered.some((protocol) => protocol.startsWith('openai-insecure-api-key.sk-'));
    if (url.pathname !== '/v1/realtime' || !key) {
      socket.end(
        'HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}',
      );
      return;
    }
    upgrades.push({ url: request.url ?? '/', headers: request.headers });
    wss.handleUpgrade(request, socket, head, (ws) => {
      const id = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
      const send = (event: Record<string, unknown>) => ws.send(JSON.stringify({ event_id: id('event'), ...event }));
      let session: Record<string, unknown> = {
        type: 'realtime',
        object: 'realtime.session',
        id: id('sess'),
        model: url.searchParams.get('model'),
        output_modalities: ['audio'],
        instructions: '',
      };
      let lastItem: string | null = null;
      let lastText = '';
      send({ type: 'session.created', session });
      ws.on('message', (data) => {
        const event = JSON.parse(String(data)) as { type: string; session?: Record<string, unknown>; item?: Record<string, unknown>; audio?: string };
        received.push(event);
        if (event.type === 'session.update') {
          session = { ...session, ...event.session };
          send({ type: 'session.updated', session });
        } else if (event.type === 'conversation.item.create') {
          const item = { id: id('item'), status: 'completed', ...event.item };
          const content = (event.item?.content as Array<{ text?: string }> | undefined) ?? [];
          lastText = content.map((part) => part.text ?? '').join(' ');
          send({ type: 'conversation.item.added', previous_item_id: lastItem, item });
          send({ type: 'conversation.item.done', previous_item_id: lastItem, item });
          lastItem = item.id as string;
        } else if (event.type === 'input_audio_buffer.append') {
          // Buffered: nothing is sent until a commit.
        } else if (event.type === 'input_audio_buffer.commit') {
          const itemId = id('item');
          send({ type: 'input_audio_buffer.committed', previous_item_id: lastItem, item_id: itemId });
          lastItem = itemId;
          lastText = 'your recording';
        } else if (event.type === 'response.create') {
          const responseId = id('resp');
          const itemId = id('item');
          const text = `You said: ${lastText}.`;
          send({ type: 'response.created', response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [] } });
          send({
            type: 'response.output_item.added',
            response_id: responseId,
            output_index: 0,
            item: { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
          });
          send({
            type: 'response.content_part.added',
            response_id: responseId,
            item_id: itemId,
            output_index: 0,
            content_index: 0,
            part: { type: 'text', text: '' },
          });
          for (const word of text.split(/(?<= )/))
            send({ type: 'response.output_text.delta', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, delta: word });
          send({ type: 'response.output_text.done', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, text });
          send({
            type: 'response.output_item.done',
            response_id: responseId,
            output_index: 0,
            item: { id: itemId, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'text', text }] },
          });
          send({
            type: 'response.done',
            response: { id: responseId, object: 'realtime.response', status: 'completed', usage: { total_tokens: 42, input_tokens: 30, output_tokens: 12 } },
          });
        } else {
          send({
            type: 'error',
            error: { type: 'invalid_request_error', code: 'unknown_event', message: `Unknown event type ${event.type}`, param: null, event_id: null },
          });
        }
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    upgrades,
    received,
    connections: () => connections,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
