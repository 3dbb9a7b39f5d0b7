// A real MCP server, built with the official SDK's server, on port 0: the stand-in upstream for
// recording MCP calls through the proxy. Stateful (a session id per client, from randomUUID as the
// SDK's own examples do), answering over SSE unless `json` is asked for.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

export interface McpUpstream {
  /** The endpoint, e.g. `http://127.0.0.1:40123/mcp`. */
  url: string;
  /** Every HTTP request the server received, in order. */
  received: Array<{ method: string; headers: IncomingHttpHeaders; body: string }>;
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** The forecast the stand-in's `get_weather` tool answers for a city. */
export function forecastOf(city: string): { city: string; tempC: number; sky: string } {
  return { city, tempC: 10 + (city.length % 15), sky: city.length % 2 === 0 ? 'sunny' : 'cloudy' };
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'weather-standin', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool(
    'get_weather',
    {
      description: 'The weather in a city',
      inputSchema: { city: z.string() },
      outputSchema: { city: z.string(), tempC: z.number(), sky: z.string() },
    },
    async ({ city }, extra) => {
      // A notification on the call's own stream, before its result: the stream holds two events.
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: `looking up ${city}` } });
      const forecast = forecastOf(city);
      return { content: [{ type: 'text', text: JSON.stringify(forecast) }], structuredContent: forecast };
    },
  );
  // A tool whose answer holds a credential (a misconfigured server echoing its own key).
  server.registerTool('show_config', { description: 'The server config' }, async () => ({
    content: [{ type: 'text', text: `api_key=${['sk', 'proj'].join('-')}-${'LEAK'.repeat(8)}0000` }],
  }));
  server.registerResource('readme', 'docs://readme', { mimeType: 'text/markdown' }, async (uri) => ({
    contents: [{ uri: uri.href, text: '# Weather\nAsk for a city.' }],
  }));
  return server;
}

export async function startMcpUpstream(options: { json?: boolean } = {}): Promise<McpUpstream> {
  const received: McpUpstream['received'] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let connections = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ method: request.method ?? 'GET', headers: request.headers, body });
      void (async () => {
        const sessionId = request.headers['mcp-session-id'];
        let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
        if (transport === undefined) {
          if (typeof sessionId === 'string') {
            response
              .writeHead(404, { 'content-type': 'application/json' })
              .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
            return;
          }
          const created = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            enableJsonResponse: options.json === true,
            onsessioninitialized: (id) => {
              sessions.set(id, created);
            },
          });
          transport = created;
          await mcpServer().connect(transport);
        }
        await transport.handleRequest(request, response, body === '' ? undefined : JSON.parse(body));
      })().catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500).end(String(error));
      });
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    received,
    connections: () => connections,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
