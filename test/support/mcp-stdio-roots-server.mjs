// A stdio MCP server that asks its client for roots, as @modelcontextprotocol/server-filesystem
// does: after notifications/initialized it sends roots/list, and until it has the answer it
// refuses every path (the filesystem server's "Access denied - path outside allowed directories").
// Built with the official SDK. Each start appends a line to $MCP_STARTED_FILE; with
// MCP_ASK_ROOTS=no it never asks, as a server whose handshake differs from the recorded one.
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';

if (process.env.MCP_STARTED_FILE) appendFileSync(process.env.MCP_STARTED_FILE, `${process.pid}\n`);
const server = new McpServer({ name: 'files-stdio', version: '1.0.0' });
let roots = [];
server.server.oninitialized = () => {
  if (process.env.MCP_ASK_ROOTS === 'no' || server.server.getClientCapabilities()?.roots === undefined) return;
  void server.server.listRoots().then((answer) => {
    roots = answer.roots.map((root) => new URL(root.uri).pathname);
  });
};
server.registerTool('read_file', { description: 'Reads a file under the roots', inputSchema: { path: z.string() } }, async ({ path }) => {
  if (!roots.some((root) => path === root || path.startsWith(`${root}/`))) {
    return {
      isError: true,
      content: [{ type: 'text', text: `Access denied - path outside allowed directories: ${path} not in ${roots.join(', ') || 'no roots'}` }],
    };
  }
  return { content: [{ type: 'text', text: `the text of ${path}` }] };
});
await server.connect(new StdioServerTransport());
