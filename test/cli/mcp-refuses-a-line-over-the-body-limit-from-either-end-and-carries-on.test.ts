import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { CLI } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

// A stdio MCP server that misbehaves on cue: `tools/list` is answered with a line of LONG_BYTES
// (ended by a line break, or never when LONG_END is 0, the server writing on), `resources/list`
// with a line that is not JSON-RPC; everything else as a server does.
const SERVER = `import { createInterface } from 'node:readline';
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize')
    send({ id: message.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'odd', version: '1' } } });
  else if (message.method === 'tools/list') {
    process.stdout.write(\`{"jsonrpc":"2.0","id":\${message.id},"result":{"tools":[{"name":"\${'x'.repeat(Number(process.env.LONG_BYTES))}\`);
    if (process.env.LONG_END === '1') process.stdout.write('","inputSchema":{"type":"object"}}]}}\\n');
    else setInterval(() => process.stdout.write('y'.repeat(1000)), 10);
  } else if (message.method === 'resources/list') {
    process.stdout.write('starting the resource index... done\\n');
    send({ id: message.id, result: { resources: [] } });
  } else if (message.id !== undefined) send({ id: message.id, result: {} });
});
`;

const rpc = (message: Record<string, unknown>): string => JSON.stringify({ jsonrpc: '2.0', ...message });
const INITIALIZE = rpc({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const INITIALIZED = rpc({ method: 'notifications/initialized' });

/** `modeltape mcp ARGS -- node server.mjs`, with a way to write to it and wait for each answer. */
function startBridge(args: string[], dir: string, env: NodeJS.ProcessEnv = {}) {
  writeFileSync(`${dir}/server.mjs`, SERVER);
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [CLI, 'mcp', ...args, '--', process.execPath, `${dir}/server.mjs`], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  let waiting: (() => void) | undefined;
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    waiting?.();
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const messages = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { id?: unknown; result?: unknown; error?: { code: number; message: string } });
  return {
    child,
    /** Writes `text` and waits (at most 20 s) for an answer to `id`. */
    async ask(text: string, id: number) {
      child.stdin.write(text);
      const deadline = Date.now() + 20_000;
      while (!messages().some((message) => message.id === id) && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          waiting = resolve;
          setTimeout(resolve, 200);
        });
      }
      return messages().find((message) => message.id === id);
    },
    async end() {
      child.stdin.end();
      return { code: await exited, stderr, messages: messages() };
    },
  };
}

describe('modeltape mcp and a line over the body limit', () => {
  const dir = tempDir();

  test("a server's line with no line break is refused as it passes the limit: the request gets an error, and the session ends with its summary", async () => {
    const bridge = startBridge(['--tape', `${dir}/t.jsonl`, '--mode', 'record', '--allow-record-in-ci', '--max-response-body', '4096'], dir, {
      LONG_BYTES: '20000',
      LONG_END: '0',
    });
    expect(await bridge.ask(`${INITIALIZE}\n${INITIALIZED}\n`, 0)).toMatchObject({ result: { serverInfo: { name: 'odd' } } });
    const refused = await bridge.ask(`${rpc({ id: 1, method: 'tools/list' })}\n`, 1);
    expect(refused?.error?.message).toContain('wrote a line over the 4096 bytes limit of a response while answering tools/list');
    expect(refused?.error?.message).toContain('--max-response-body');
    const { code, stderr } = await bridge.end();
    expect(stderr).toMatch(/modeltape record \S+: 0 hits, 0 misses, 2 recorded .*, 1 refused/);
    expect(stderr).not.toContain('RangeError');
    expect(code).toBe(1);
    // The handshake is on the tape; the call whose answer was refused is not.
    expect(loadTape(`${dir}/t.jsonl`).exchanges).toHaveLength(2);
  });

  test("a server's long line that ends is refused, and the next call is answered as usual", async () => {
    const bridge = startBridge(['--tape', `${dir}/t.jsonl`, '--mode', 'record', '--allow-record-in-ci', '--max-response-body', '4096'], dir, {
      LONG_BYTES: '20000',
      LONG_END: '1',
    });
    await bridge.ask(`${INITIALIZE}\n${INITIALIZED}\n`, 0);
    expect((await bridge.ask(`${rpc({ id: 1, method: 'tools/list' })}\n`, 1))?.error?.code).toBe(-32090);
    expect(await bridge.ask(`${rpc({ id: 2, method: 'ping' })}\n`, 2)).toMatchObject({ result: {} });
    const { code, stderr, messages } = await bridge.end();
    // The server's own answer to the refused call, when it ended, did not reach the client.
    expect(messages.filter((message) => message.id === 1)).toHaveLength(1);
    expect(stderr).toMatch(/3 recorded .*, 1 refused/);
    expect(code).toBe(1);
  });

  test("a client's line with no line break is refused as it passes the limit, and the bridge holds none of it", async () => {
    const bridge = startBridge(['--tape', `${dir}/t.jsonl`, '--mode', 'record', '--allow-record-in-ci', '--max-request-body', '4096'], dir);
    await bridge.ask(`${INITIALIZE}\n${INITIALIZED}\n`, 0);
    // 256 MB of one request with no line break: its id, at its start, gets the refusal at once.
    const head = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"summarize","arguments":{"text":"`;
    const chunk = 'z'.repeat(1 << 20);
    const refused = await bridge.ask(head + chunk, 7);
    expect(refused?.error?.message).toContain('its body is over the 4096 bytes limit of a request');
    // The peak resident size of the bridge in MB (Linux only), before and after the other 255 MB.
    const peakMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${bridge.child.pid}/status`, 'utf8'))?.[1]) / 1024;
    const before = process.platform === 'linux' ? peakMb() : 0;
    for (let sent = 1; sent < 256; sent++) await new Promise((written) => bridge.child.stdin.write(chunk, written));
    if (process.platform === 'linux') {
      // All but a pipe's worth of it was read: the peak grew by garbage not yet collected (43 MB
      // on Node 20, 66 MB on Node 24 here, over a start of 77 and 94 MB), far from the 255 MB that
      // holding the line would add. The bound is on the growth, which no Node's own start moves.
      expect(peakMb() - before).toBeLessThan(128);
    }
    // The line ends; what follows is read as usual.
    expect(await bridge.ask(`"}}}\n${rpc({ id: 8, method: 'ping' })}\n`, 8)).toMatchObject({ result: {} });
    const { code, stderr } = await bridge.end();
    expect(stderr).toMatch(/1 refused/);
    expect(code).toBe(1);
  });

  test('a line from the server that is not JSON-RPC is passed on but not recorded, and the summary says so', async () => {
    const bridge = startBridge(['--tape', `${dir}/t.jsonl`, '--mode', 'record', '--allow-record-in-ci'], dir);
    await bridge.ask(`${INITIALIZE}\n${INITIALIZED}\n`, 0);
    expect(await bridge.ask(`${rpc({ id: 3, method: 'resources/list' })}\n`, 3)).toMatchObject({ result: { resources: [] } });
    const { code, stderr } = await bridge.end();
    expect(stderr).toContain(
      'wrote a line to stdout that is not JSON-RPC (the first, 35 bytes: "starting the resource index... done"): passed on to the client, not recorded',
    );
    expect(code).toBe(0);
    const recorded = loadTape(`${dir}/t.jsonl`).exchanges.find(
      ({ exchange }) => (exchange.request.body as { json: { method: string } }).json.method === 'resources/list',
    );
    expect(JSON.stringify(recorded?.exchange.response)).not.toContain('starting the resource index');
  });
});
