// A real MCP server over stdio, built with the official SDK: the stand-in a `modeltape mcp` record
// starts. Each start appends a line to $MCP_STARTED_FILE, so a test can prove replay started none.
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';

if (process.env.MCP_STARTED_FILE) appendFileSync(process.env.MCP_STARTED_FILE, `${process.pid}\n`);
// Every line the server is sent, for a test to count.
if (process.env.MCP_HEARD_FILE) process.stdin.on('data', (chunk) => appendFileSync(process.env.MCP_HEARD_FILE, chunk));
const server = new McpServer({ name: 'weather-stdio', version: '1.0.0' }, { capabilities: { logging: {} } });
server.registerTool(
  'get_weather',
  { description: 'The weather in a city', inputSchema: { city: z.string() }, outputSchema: { city: z.string(), tempC: z.number() } },
  async ({ city }, extra) => {
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: `looking up ${city}` } });
    const forecast = { city, tempC: 10 + city.length };
    return { content: [{ type: 'text', text: JSON.stringify(forecast) }], structuredContent: forecast };
  },
);
server.registerResource('readme', 'docs://readme', { mimeType: 'text/markdown' }, async (uri) => ({ contents: [{ uri: uri.href, text: '# Weather' }] }));
await server.connect(new StdioServerTransport());
