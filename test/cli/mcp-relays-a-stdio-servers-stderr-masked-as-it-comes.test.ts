import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { CLI } from '../support/cli.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { tempDir } from '../support/temp-dir.js';

// A stdio MCP server's stderr reaches the terminal through `modeltape mcp`: a server that prints
// its environment prints its keys, and one that prints an escape sequence could retitle the
// terminal. Its lines come through as they are written, masked and escaped as modeltape's own.

const dir = tempDir();

// Says on stderr what it was started with, in pieces (a key split across two writes), answers each
// request on stdout after a line on stderr, and ends with a line it never finishes.
const SERVER = `import { createInterface } from 'node:readline';
const key = process.env.OPENAI_API_KEY;
process.stderr.write('starting with OPENAI_API_KEY=' + key.slice(0, 12));
const started = new Promise((resolve) =>
  setTimeout(() => resolve(process.stderr.write(key.slice(12) + '\\n\\u001b]0;owned\\u0007 title set\\n')), 50),
);
createInterface({ input: process.stdin }).on('line', async (line) => {
  await started;
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  process.stderr.write('handling ' + message.method + '\\n');
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'env-printer', version: '1' } } }) + '\\n');
});
process.stdin.on('end', () => process.stderr.write('bye, ' + key));
`;

test("modeltape mcp passes the server's stderr on line by line as it comes, each key masked and each control escaped", async () => {
  const server = join(dir, 'env-printer.mjs');
  writeFileSync(server, SERVER);
  const key = fakeOpenAiKey();
  const child = spawn(process.execPath, [CLI, 'mcp', '--tape', join(dir, 'mcp.jsonl'), '--mode', 'passthrough', '--', process.execPath, server], {
    env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: key },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const answered = new Promise<void>((resolve) =>
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('\n')) resolve();
    }),
  );
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
  );
  await answered;
  // While the session is open, the server's lines so far are already on modeltape's stderr.
  await expect.poll(() => stderr).toContain('handling initialize');
  expect(stderr).toContain('starting with OPENAI_API_KEY=[openai-key 44 chars]');
  child.stdin.end();
  expect(await exited).toBe(0);

  expect(stderr).toContain('\\u001b]0;owned\\u0007 title set');
  // The unfinished last line comes through when the server ends, masked too.
  expect(stderr).toContain('bye, [openai-key 44 chars]');
  for (let at = 'sk-proj-'.length; at + 8 <= key.length; at++) expect(stderr).not.toContain(key.slice(at, at + 8));
  expect(stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  // The protocol on stdout is the server's, untouched.
  expect(JSON.parse(stdout.split('\n')[0]!)).toMatchObject({ id: 1, result: { serverInfo: { name: 'env-printer' } } });
});
