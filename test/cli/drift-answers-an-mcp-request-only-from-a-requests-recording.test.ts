import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { CLI, runCli } from '../support/cli.js';
import { startMcpUpstream } from '../support/mcp-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const STDIO_SERVER = fileURLToPath(new URL('../support/mcp-stdio-upstream.mjs', import.meta.url));

// An agent that connects, then makes two calls the tape never recorded, each bounded to 15 s:
// it prints how each ended and how long it waited. Over stdio it starts `modeltape mcp` where its
// config names the server; over HTTP it reaches the server at the run's proxy.
const AGENT = `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
const [transport, tape] = process.argv.slice(2);
const client = new Client({ name: 'drifting-agent', version: '1.0.0' });
await client.connect(
  transport === 'stdio'
    ? new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(CLI)}, 'mcp', '--tape', tape, '--', process.execPath, ${JSON.stringify(STDIO_SERVER)}], stderr: 'ignore' })
    : new StreamableHTTPClientTransport(new URL(process.env.MODELTAPE_URL + '/docs')),
);
for (const [what, call] of [
  ['tools/list', () => client.listTools(undefined, { timeout: 15000 })],
  ['tools/call', () => client.callTool({ name: 'get_weather', arguments: { city: 'Lyon' } }, undefined, { timeout: 15000 })],
]) {
  const started = Date.now();
  const outcome = await call().then(() => 'answered', (error) => error.message.split('\\n')[0]);
  console.log(JSON.stringify({ what, outcome, ms: Date.now() - started }));
}
await client.close();
`;

describe('modeltape drift over an MCP tape whose calls are new', () => {
  const dir = tempDir({ inProject: true });

  // The tape holds the handshake only: initialize, and notifications/initialized (the nearest
  // recording of any new call, a notification, whose answer holds no response).
  async function driftAgainst(transport: 'stdio' | 'http', tape: string) {
    writeFileSync(`${dir}/agent.mjs`, AGENT);
    const drift = await runCli(['drift', '--tape', tape, '--', process.execPath, `${dir}/agent.mjs`, transport, tape], { env: { CI: 'true' } });
    const calls = drift.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { what: string; outcome: string; ms: number });
    expect(
      calls.map((call) => call.what),
      drift.stdout + drift.stderr,
    ).toEqual(['tools/list', 'tools/call']);
    for (const call of calls) {
      // Answered at once with the miss's JSON-RPC error, naming the nearest call, not left to time out.
      expect(call.outcome).toMatch(new RegExp(`^MCP error -32090: Failed to replay ${call.what}`));
      expect(call.ms).toBeLessThan(10_000);
    }
    expect(drift.stderr).toMatch(/nearest recording at \S+:3/);
    expect(drift.stderr).toContain('at .method: recorded "notifications/initialized" sent "tools/list"');
    expect(drift.stderr).toMatch(/MCP tools\/list \(\S+\): 1 drifted/);
    expect(drift.stderr).toMatch(/MCP tools\/call get_weather \(\S+\): 1 drifted/);
    expect(drift.code).toBe(1);
  }

  test('over stdio, each request gets a JSON-RPC error at once', { timeout: 120_000 }, async () => {
    const tape = `${dir}/stdio.jsonl`;
    // The same client connects through `modeltape mcp --mode record`, and leaves.
    const client = new Client({ name: 'drifting-agent', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--tape', tape, '--mode', 'record', '--', process.execPath, STDIO_SERVER],
        stderr: 'ignore',
      }),
    );
    await client.close();
    await driftAgainst('stdio', tape);
  });

  test('over Streamable HTTP, each request gets a JSON-RPC error at once', { timeout: 120_000 }, async () => {
    const upstream = await startMcpUpstream({ json: true });
    const tape = `${dir}/http.jsonl`;
    try {
      const proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { docs: `mcp+${upstream.url}` }, log: () => undefined });
      const client = new Client({ name: 'drifting-agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(proxy.urlOf('docs'))));
      await client.close();
      expect((await proxy.close()).recorded).toBeGreaterThanOrEqual(2);
    } finally {
      await upstream.close();
    }
    await driftAgainst('http', tape);
  });
});
