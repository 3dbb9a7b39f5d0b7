import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { CLI, runCli, type CliResult } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

const SERVER = fileURLToPath(new URL('../support/mcp-stdio-upstream.mjs', import.meta.url));

// The agent's config, with `modeltape mcp --tape … --` put before the server command.
function transport(tape: string, mode: string, started: string, stderr: string[]) {
  const made = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--tape', tape, '--mode', mode, '--allow-record-in-ci', '--', process.execPath, SERVER],
    env: { PATH: process.env.PATH ?? '', MCP_STARTED_FILE: started },
    stderr: 'pipe',
  });
  made.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  return made;
}

async function session(tape: string, mode: string, started: string, stderr: string[] = []) {
  const client = new Client({ name: 'weather-agent', version: '1.0.0' });
  const logged: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logged.push(notification.params.data);
  });
  await client.connect(transport(tape, mode, started, stderr));
  try {
    const tools = await client.listTools();
    const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    const readme = await client.readResource({ uri: 'docs://readme' });
    return { server: client.getServerVersion(), tools, weather, readme, logged };
  } finally {
    await client.close();
  }
}

// Lines written straight to `modeltape mcp`, as a client that numbers its calls its own way would.
function rpc(id: number | undefined, method: string, params: Record<string, unknown> = {}): string {
  return JSON.stringify({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, params });
}
const HANDSHAKE = (first: number) => [
  rpc(first, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }),
  rpc(undefined, 'notifications/initialized'),
];
const weather = (id: number, city: string) => rpc(id, 'tools/call', { name: 'get_weather', arguments: { city } });

// One message at a time, each after the answer to the one before, as a client waits.
function bridge(args: string[], lines: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCli(['mcp', ...args, '--', process.execPath, SERVER], { env, stdin: { lines, gapMs: 150 } });
}

const answers = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { id?: number; method?: string; result?: { structuredContent?: unknown }; error?: { code: number; message: string } });

describe('modeltape mcp in front of a stdio MCP server', () => {
  const dir = tempDir();

  test('records a session of the official client once, then replays it without starting the server', async () => {
    const tape = `${dir}/stdio.jsonl`;
    const recordStderr: string[] = [];
    const recorded = await session(tape, 'record', `${dir}/started-record`, recordStderr);
    expect(recorded.weather.structuredContent).toEqual({ city: 'Paris', tempC: 15 });
    expect(recorded.logged).toEqual(['looking up Paris']);
    expect(readFileSync(`${dir}/started-record`, 'utf8').trim().split('\n')).toHaveLength(1);
    const { exchanges } = loadTape(tape);
    expect(
      exchanges.map(({ exchange }) => [exchange.upstream, (exchange.request.body as { json: { method: string } }).json.method, exchange.response.status]),
    ).toEqual([
      ['mcp-stdio', 'initialize', 200],
      ['mcp-stdio', 'notifications/initialized', 202],
      ['mcp-stdio', 'tools/list', 200],
      ['mcp-stdio', 'tools/call', 200],
      ['mcp-stdio', 'resources/read', 200],
    ]);
    // The call's answer holds the server's log line, then its result, as the server wrote them.
    expect(exchanges[3]!.exchange.response.stream).toMatchObject({ format: 'ndjson', frames: [{}, {}] });

    const replayStderr: string[] = [];
    const replayed = await session(tape, 'replay', `${dir}/started-replay`, replayStderr);
    expect(replayed).toEqual(recorded);
    expect(existsSync(`${dir}/started-replay`)).toBe(false);
    await expect
      .poll(() => replayStderr.join(''))
      .toMatch(/modeltape replay .*: 5 hits, 0 misses, 0 recorded, 0 passthrough, 0 refused, 0 upstream connections/);
  });

  test('under modeltape run, a stdio miss fails the run though the agent carried on, and modeltape drift lists it as an MCP call', async () => {
    const tape = `${dir}/under-run.jsonl`;
    await session(tape, 'record', `${dir}/started-under-run`);
    const agent = fileURLToPath(new URL('../support/mcp-stdio-agent.mjs', import.meta.url));
    const passed = await runCli(['run', '--tape', tape, '--', process.execPath, agent, tape, 'Paris'], { env: { CI: 'true' } });
    expect(passed.code, passed.stdout + passed.stderr).toBe(0);
    expect(passed.stdout).toContain('{"city":"Paris","tempC":15}');
    const failed = await runCli(['run', '--tape', tape, '--', process.execPath, agent, tape, 'Lyon'], { env: { CI: 'true' } });
    expect(failed.stdout).toContain('tool failed: MCP error -32090: Failed to replay tools/call get_weather');
    expect(failed.code).toBe(1);
    const drift = await runCli(['drift', '--tape', tape, '--', process.execPath, agent, tape, 'Lyon'], { env: { CI: 'true' } });
    expect(drift.stdout + drift.stderr).toContain('MCP tools/call get_weather (mcp-stdio)');
    expect(drift.stdout + drift.stderr).toContain('.params.arguments.city');
    // A recording, a run and a drift, each starting an agent and the bridge: about 10 s on a
    // quiet machine, past 30 s on two loaded cores.
  }, 90_000);

  test('replays for a client that numbers its calls otherwise, and fails on a call not recorded, naming the nearest', async () => {
    const tape = `${dir}/raw.jsonl`;
    const heard = `${dir}/heard-raw`;
    const recorded = await bridge(['--tape', tape, '--mode', 'record', '--allow-record-in-ci'], [...HANDSHAKE(0), weather(1, 'Paris')], {
      MCP_HEARD_FILE: heard,
    });
    expect(recorded.code, recorded.stderr).toBe(0);
    // The server heard each message once: the handshake is replayed to it only when the tape answered it.
    expect(readFileSync(heard, 'utf8').trim().split('\n')).toEqual([...HANDSHAKE(0), weather(1, 'Paris')]);
    expect(answers(recorded.stdout).map((message) => message.id ?? message.method)).toEqual([0, 'notifications/message', 1]);

    const replayed = await bridge(['--tape', tape], [...HANDSHAKE(40), weather(41, 'Paris'), weather(42, 'Lyon')], { CI: 'true' });
    expect(replayed.code).toBe(1);
    const messages = answers(replayed.stdout);
    expect(messages.map((message) => message.id ?? message.method)).toEqual([40, 'notifications/message', 41, 42]);
    expect(messages[2]!.result!.structuredContent).toEqual({ city: 'Paris', tempC: 15 });
    expect(messages[3]!.error!.code).toBe(-32090);
    expect(messages[3]!.error!.message).toContain('Failed to replay tools/call get_weather (POST /mcp-stdio)');
    expect(messages[3]!.error!.message).toContain('at .params.arguments.city: recorded "Paris" sent "Lyon"');
    expect(replayed.stderr).toContain('3 hits, 1 miss');

    // A request refused before any lookup (over --max-request-body) still gets its error, under its id.
    const refused = await bridge(['--tape', tape, '--max-request-body', '400'], [...HANDSHAKE(7), weather(8, 'x'.repeat(500))]);
    expect(refused.code).toBe(1);
    const refusal = answers(refused.stdout).find((message) => message.id === 8);
    expect(refusal?.error?.message).toContain('limit');
  });

  test('auto replays what the tape has and, at the first miss, starts the server behind the handshake and records the call', async () => {
    const tape = `${dir}/auto.jsonl`;
    await bridge(['--tape', tape, '--mode', 'record', '--allow-record-in-ci'], [...HANDSHAKE(0), weather(1, 'Paris')]);
    const started = `${dir}/started-auto`;
    const auto = await bridge(['--tape', tape, '--mode', 'auto', '--allow-record-in-ci'], [...HANDSHAKE(0), weather(1, 'Paris'), weather(2, 'Lyon')], {
      MCP_STARTED_FILE: started,
    });
    expect(auto.code, auto.stderr).toBe(0);
    const messages = answers(auto.stdout);
    // One initialize answer (the tape's): the server's answer to the replayed handshake is not shown.
    expect(messages.map((message) => message.id ?? message.method)).toEqual([0, 'notifications/message', 1, 'notifications/message', 2]);
    expect(messages[4]!.result!.structuredContent).toEqual({ city: 'Lyon', tempC: 14 });
    expect(readFileSync(started, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(loadTape(tape).exchanges).toHaveLength(4);
  });

  test('fails a replay that no message reached, and refuses a command line without the server command', async () => {
    const tape = `${dir}/silent.jsonl`;
    await bridge(['--tape', tape, '--mode', 'record', '--allow-record-in-ci'], [...HANDSHAKE(0)]);
    const silent = await bridge(['--tape', tape], []);
    expect(silent.code).toBe(1);
    expect(silent.stdout).toBe('');
    expect(silent.stderr).toContain('the client never spoke to the server, so nothing was checked');
    const missing = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'mcp', '--tape', `${dir}/x.jsonl`]);
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.once('close', (code) => resolve({ code, stderr }));
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('needs the server command after --');
  });
});
