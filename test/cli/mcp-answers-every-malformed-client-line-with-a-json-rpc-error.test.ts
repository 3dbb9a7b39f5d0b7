import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { runCli, type CliResult } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

const SERVER = fileURLToPath(new URL('../support/mcp-stdio-upstream.mjs', import.meta.url));

// Lines written straight to `modeltape mcp`, one at a time, as a client that waits would.
function bridge(args: string[], lines: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCli(['mcp', ...args, '--', process.execPath, SERVER], { env, stdin: { lines, gapMs: 100 } });
}

const rpc = (message: Record<string, unknown>): string => JSON.stringify({ jsonrpc: '2.0', ...message });
const HANDSHAKE = [
  rpc({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  rpc({ method: 'notifications/initialized' }),
];
const LIST = (id: number) => rpc({ id, method: 'tools/list' });

// Every kind of line that is not one JSON-RPC 2.0 message, and the answer JSON-RPC 2.0 gives it:
// -32700 for what is not JSON, -32600 for JSON that is no valid message, under the id when it can
// be read and null when not; a batch is answered with an array.
type Answer = { id: unknown; code: number };
const MALFORMED: Array<[string, string, Answer | Answer[]]> = [
  ['not JSON', 'hello', { id: null, code: -32700 }],
  ['cut-off JSON', '{"jsonrpc":"2.0","id":1,"method":"tools/list"', { id: null, code: -32700 }],
  ['a NUL after a message', `${LIST(2)}\u0000`, { id: null, code: -32700 }],
  ['a NUL inside a string', '{"jsonrpc":"2.0","id":3,"method":"tools/\u0000list"}', { id: null, code: -32700 }],
  ['an empty batch', '[]', { id: null, code: -32600 }],
  [
    'a batch',
    `[${LIST(5)},${rpc({ method: 'notifications/roots/list_changed' })},${LIST(6)}]`,
    [
      { id: 5, code: -32600 },
      { id: 6, code: -32600 },
    ],
  ],
  ['a number', '42', { id: null, code: -32600 }],
  ['a string', '"tools/list"', { id: null, code: -32600 }],
  ['null', 'null', { id: null, code: -32600 }],
  ['an empty object', '{}', { id: null, code: -32600 }],
  ['no jsonrpc', '{"id":11,"method":"tools/list"}', { id: 11, code: -32600 }],
  ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":12,"method":"tools/list"}', { id: 12, code: -32600 }],
  ['a method that is not a string', rpc({ id: 13, method: 42 }), { id: 13, code: -32600 }],
  ['an object id', rpc({ id: { n: 14 }, method: 'tools/list' }), { id: null, code: -32600 }],
  ['a fractional id', rpc({ id: 1.5, method: 'tools/list' }), { id: null, code: -32600 }],
  ['a null id on a request', rpc({ id: null, method: 'tools/list' }), { id: null, code: -32600 }],
  ['params that are a string', rpc({ id: 17, method: 'tools/list', params: 'all' }), { id: 17, code: -32600 }],
  ['a response with a result and an error', rpc({ id: 18, result: {}, error: { code: 1, message: 'x' } }), { id: 18, code: -32600 }],
  ['neither a method nor a result', rpc({ id: 19 }), { id: 19, code: -32600 }],
];

function answersOf(stdout: string): unknown[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

const shape = (message: unknown): unknown =>
  Array.isArray(message)
    ? message.map(shape)
    : { id: (message as { id: unknown }).id, code: (message as { error?: { code: number } }).error?.code, jsonrpc: (message as { jsonrpc: string }).jsonrpc };

describe('modeltape mcp and a client line that is not one JSON-RPC message', () => {
  const dir = tempDir({ scope: 'file' });

  test('replay answers each kind with its JSON-RPC error, at once, and carries on', { timeout: 60_000 }, async () => {
    const tape = `${dir}/tools.jsonl`;
    const recorded = await bridge(['--tape', tape, '--mode', 'record', '--allow-record-in-ci'], [...HANDSHAKE, LIST(1)]);
    expect(recorded.code, recorded.stderr).toBe(0);

    const replayed = await bridge(['--tape', tape], [...HANDSHAKE, ...MALFORMED.map(([, line]) => line), LIST(99)], { CI: 'true' });
    const answers = answersOf(replayed.stdout);
    // initialize's answer, one per malformed line, then tools/list still answered from the tape.
    expect(answers).toHaveLength(1 + MALFORMED.length + 1);
    MALFORMED.forEach(([kind, , expected], index) => {
      const jsonrpc = (answer: Answer) => ({ ...answer, jsonrpc: '2.0' });
      expect(shape(answers[1 + index]), kind).toEqual(Array.isArray(expected) ? expected.map(jsonrpc) : jsonrpc(expected));
    });
    expect(answers.at(-1)).toMatchObject({ id: 99, result: { tools: [{ name: 'get_weather' }] } });
    expect(replayed.stderr).toContain(`3 hits, 0 misses, 0 recorded, 0 passthrough, ${MALFORMED.length} refused`);
    expect(replayed.stderr).toContain('Refused a line from the MCP client (5 bytes): Parse error: the line is not JSON');
    expect(replayed.code).toBe(1);
  });

  test('record never sends one to the server nor records it', { timeout: 60_000 }, async () => {
    const tape = `${dir}/recorded.jsonl`;
    const heard = `${dir}/heard`;
    const result = await bridge(['--tape', tape, '--mode', 'record', '--allow-record-in-ci'], [...HANDSHAKE, ...MALFORMED.map(([, line]) => line), LIST(99)], {
      MCP_HEARD_FILE: heard,
    });
    expect(answersOf(result.stdout)).toHaveLength(1 + MALFORMED.length + 1);
    expect(readFileSync(heard, 'utf8').trim().split('\n')).toEqual([...HANDSHAKE, LIST(99)]);
    const methods = loadTape(tape).exchanges.map(({ exchange }) => (exchange.request.body as { json: { method: string } }).json.method);
    expect(methods.sort()).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
    expect(result.code).toBe(1);
  });
});
