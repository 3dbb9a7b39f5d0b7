import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { namespaceSupport } from '../../dist/proxy/internal.js';
import { runMain } from '../support/cli.js';
import { writeChatSuite, writeChatTape } from '../support/chat-tape.js';
import { tempDir } from '../support/temp-dir.js';

const support = namespaceSupport();
const available = !('reason' in support);
// Under CI (Linux, as .ci/run runs) the namespace must be there: a skip would hide a regression.
if (!available && process.env.CI) throw new Error(`CI must test the network namespace, but: ${support.reason}`);

// mutate's runs are replays: with --network namespace each (the baseline and every mutant) runs in
// a network namespace of its own, where a port on this machine's loopback outside it is out of
// reach, as it is for modeltape run. The suite fails if it reaches a stand-in listening outside.
describe.skipIf(!available)('modeltape mutate --network namespace', () => {
  const dir = tempDir();
  let outside: Server;
  let connections = 0;

  beforeAll(async () => {
    outside = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => outside.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => outside.close(() => resolve())));

  function writeSuite(): void {
    const port = (outside.address() as { port: number }).port;
    writeChatTape(`${dir}/parcels.jsonl`, 2);
    writeChatSuite(`${dir}/chat.mjs`, [0, 1]);
    // Each run writes what its try for the outside port came to, then replays the tape.
    writeFileSync(
      `${dir}/suite.mjs`,
      `import { appendFileSync } from 'node:fs';
import { connect } from 'node:net';
const result = await new Promise((resolve) => {
  const socket = connect(${port}, '127.0.0.1');
  socket.once('connect', () => { socket.destroy(); resolve('connected'); });
  socket.once('error', (error) => resolve(error.code));
});
appendFileSync('outside', result + '\\n');
if (result === 'connected') process.exit(1);
await import('./chat.mjs');
`,
    );
  }

  test('the baseline and every mutant run where the outside port cannot be reached', { timeout: 60_000 }, async () => {
    writeSuite();
    connections = 0;
    const result = await runMain(['mutate', '--tape', 'parcels.jsonl', '--max', '2', '--network', 'namespace', '--', process.execPath, 'suite.mjs'], {
      cwd: dir,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('2 mutants of');
    // The baseline and the two mutants: three runs, none reaching the stand-in.
    expect(readFileSync(`${dir}/outside`, 'utf8').trim().split('\n')).toEqual(['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED']);
    expect(connections).toBe(0);
  });

  test('under the guard alone the suite reaches the outside port, so its baseline fails: the flag is what kept it in', async () => {
    writeSuite();
    connections = 0;
    const result = await runMain(['mutate', '--tape', 'parcels.jsonl', '--max', '2', '--', process.execPath, 'suite.mjs'], { cwd: dir });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('the suite does not pass on the real tapes');
    expect(readFileSync(`${dir}/outside`, 'utf8').trim().split('\n')).toEqual(['connected']);
    expect(connections).toBe(1);
  });
});
