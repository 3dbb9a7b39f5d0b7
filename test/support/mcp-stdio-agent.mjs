// An agent whose config starts its tool server through `modeltape mcp`: node mcp-stdio-agent.mjs TAPE CITY.
// It catches the tool's error and exits 0, as an agent that carries on would: only the run can fail it.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [tape, city] = process.argv.slice(2);
const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const server = fileURLToPath(new URL('./mcp-stdio-upstream.mjs', import.meta.url));
const client = new Client({ name: 'weather-agent', version: '1.0.0' });
await client.connect(
  new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--tape', tape, '--', process.execPath, server], stderr: 'inherit' }),
);
try {
  await client.listTools();
  const answer = await client.callTool({ name: 'get_weather', arguments: { city } });
  console.log(JSON.stringify(answer.structuredContent));
} catch (error) {
  console.log(`tool failed: ${error.message.split('\n')[0]}`);
}
await client.close();
