import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { CLI } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

// `modeltape mcp --mode auto` starts the server at the first miss, behind a session the tape
// answered. A server that asks its client for roots after initialized (as the filesystem server
// does) must get the client's answer from the replayed part, under its own request's id, before
// the call that missed: else it refuses the call, and that refusal must not be recorded as an answer.

const SERVER = fileURLToPath(new URL('../support/mcp-stdio-roots-server.mjs', import.meta.url));

interface Session {
  texts: Array<{ isError: boolean; text: string }>;
  /** How often the client was asked for its roots. */
  rootsAsked: number;
  /** What modeltape mcp wrote on stderr, once it exited. */
  stderr: () => Promise<string>;
}

// An agent whose config starts the server through `modeltape mcp`, with roots, that reads files once it was asked for its roots.
async function session(tape: string, mode: string, paths: string[], env: Record<string, string> = {}, root = 'file:///docs'): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--tape', tape, '--mode', mode, '--allow-record-in-ci', '--', process.execPath, SERVER],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => transport.stderr?.on('close', () => resolve()));
  const client = new Client({ name: 'files-agent', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  let rootsAsked = 0;
  let answeredRoots!: () => void;
  const rootsGiven = new Promise<void>((resolve) => (answeredRoots = resolve));
  client.setRequestHandler(ListRootsRequestSchema, () => {
    rootsAsked++;
    setImmediate(answeredRoots);
    return { roots: [{ uri: root, name: 'docs' }] };
  });
  await client.connect(transport);
  const texts: Session['texts'] = [];
  try {
    await rootsGiven;
    for (const path of paths) {
      const result = await client.callTool({ name: 'read_file', arguments: { path } });
      texts.push({ isError: result.isError === true, text: (result.content as Array<{ text: string }>)[0]!.text });
    }
  } finally {
    await client.close();
  }
  return { texts, rootsAsked, stderr: () => exited.then(() => stderr) };
}

const methods = (tape: string) =>
  loadTape(tape).exchanges.map(({ exchange }) => {
    const json = (exchange.request.body as { json: { method?: string; params?: { arguments?: { path?: string } }; result?: unknown } }).json;
    return json.method === undefined
      ? 'the client answer'
      : `${json.method}${json.params?.arguments?.path === undefined ? '' : ` ${json.params.arguments.path}`}`;
  });

describe('modeltape mcp --mode auto, in front of a server that asks its client for roots', () => {
  const dir = tempDir();

  test('the server started at the miss gets the roots the client gave in the replayed part, and the miss is recorded with its real answer', async () => {
    const tape = `${dir}/files.jsonl`;
    const recorded = await session(tape, 'record', ['/docs/a.md']);
    expect(recorded.texts).toEqual([{ isError: false, text: 'the text of /docs/a.md' }]);
    expect(methods(tape)).toEqual(['initialize', 'notifications/initialized', 'the client answer', 'tools/call /docs/a.md']);

    const started = `${dir}/started-auto`;
    const auto = await session(tape, 'auto', ['/docs/a.md', '/docs/b.md'], { MCP_STARTED_FILE: started });
    expect(auto.texts).toEqual([
      { isError: false, text: 'the text of /docs/a.md' },
      { isError: false, text: 'the text of /docs/b.md' },
    ]);
    // The client was asked once, by the tape: the late server's roots/list was answered with what it said then.
    expect(auto.rootsAsked).toBe(1);
    expect(readFileSync(started, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(await auto.stderr()).toMatch(/4 hits, 0 misses, 1 recorded, .*1 upstream connection\n/);
    expect(methods(tape)).toEqual(['initialize', 'notifications/initialized', 'the client answer', 'tools/call /docs/a.md', 'tools/call /docs/b.md']);

    // The tape now replays the whole session, with no server.
    const replayed = await session(tape, 'replay', ['/docs/a.md', '/docs/b.md'], { MCP_STARTED_FILE: `${dir}/started-replay` });
    expect(replayed.texts).toEqual(auto.texts);
    expect(existsSync(`${dir}/started-replay`)).toBe(false);
  }, 60_000);

  test('a client that answers with other roots than the tape holds: its live answer is the miss, and reaches the server started for it', async () => {
    const tape = `${dir}/files.jsonl`;
    await session(tape, 'record', ['/docs/a.md']);
    const moved = await session(tape, 'auto', ['/notes/c.md'], {}, 'file:///notes');
    expect(moved.texts).toEqual([{ isError: false, text: 'the text of /notes/c.md' }]);
    expect(moved.rootsAsked).toBe(1);
    expect(await moved.stderr()).toMatch(/2 hits, 0 misses, 2 recorded, .*1 upstream connection\n/);
    expect(methods(tape)).toEqual([
      'initialize',
      'notifications/initialized',
      'the client answer',
      'tools/call /docs/a.md',
      'the client answer',
      'tools/call /notes/c.md',
    ]);
  }, 60_000);

  test('an error the late server answers because it was not shown the whole handshake is not recorded, and fails', async () => {
    const tape = `${dir}/files.jsonl`;
    await session(tape, 'record', ['/docs/a.md']);
    // This server never asks for roots: it stands where the recorded one did not, and refuses.
    const auto = await session(tape, 'auto', ['/docs/b.md'], { MCP_ASK_ROOTS: 'no' });
    expect(auto.texts).toEqual([{ isError: true, text: 'Access denied - path outside allowed directories: /docs/b.md not in no roots' }]);
    const stderr = await auto.stderr();
    expect(stderr).toContain(
      'started behind the replayed part of the session, answered tools/call read_file with an error, and the handshake it was shown was not complete (it never asked roots/list, which the recorded server asked and the client answered in the replayed part): the answer is not recorded. Record the session whole with --mode record.',
    );
    expect(stderr).toMatch(/0 recorded.*1 upstream error/);
    expect(methods(tape)).toEqual(['initialize', 'notifications/initialized', 'the client answer', 'tools/call /docs/a.md']);
  }, 60_000);
});
