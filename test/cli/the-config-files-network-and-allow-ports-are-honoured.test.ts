import { writeFileSync } from 'node:fs';
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

// modeltape.config.json's "network" and "allowPorts" do what --network and --allow-port do: the
// replay runs in a network namespace, and a port listed is relayed into it while another is not.
describe.skipIf(!available)('"network" and "allowPorts" in modeltape.config.json', () => {
  const dir = tempDir();
  const seen = { database: 0, other: 0 };
  let database: Server;
  let other: Server;
  const ports = { database: 0, other: 0 };

  beforeAll(async () => {
    database = createServer((socket) => {
      seen.database++;
      socket.end('database says hello');
    });
    other = createServer((socket) => {
      seen.other++;
      socket.destroy();
    });
    for (const server of [database, other]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports.database = (database.address() as { port: number }).port;
    ports.other = (other.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const server of [database, other]) await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  // The command replays one request, then tries each port and prints what it came to.
  async function runWithConfig(config: Record<string, unknown>): Promise<{ code: number; lines: string[]; stderr: string }> {
    seen.database = seen.other = 0;
    writeFileSync(`${dir}/modeltape.config.json`, JSON.stringify(config));
    writeChatTape(`${dir}/parcels.jsonl`, 1);
    writeChatSuite(`${dir}/chat.mjs`, [0]);
    writeFileSync(
      `${dir}/suite.mjs`,
      `import { connect } from 'node:net';
await import('./chat.mjs');
for (const [name, port] of [['database', ${ports.database}], ['other', ${ports.other}]]) {
  const result = await new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('data', (data) => { socket.destroy(); resolve(String(data)); });
    socket.once('close', () => resolve('closed'));
    socket.once('error', (error) => resolve(error.code));
  });
  console.log(name + ' ' + result);
}
`,
    );
    const result = await runMain(['run', '--tape', `${dir}/parcels.jsonl`, '--', process.execPath, 'suite.mjs'], { cwd: dir });
    return { code: result.code, lines: result.stdout.trim().split('\n'), stderr: result.stderr };
  }

  test('"network": "namespace" with "allowPorts" runs the replay in a namespace where the listed port is reached and no other', async () => {
    const result = await runWithConfig({ network: 'namespace', allowPorts: [ports.database] });
    expect(result.code, result.stderr).toBe(0);
    expect(result.lines).toEqual(['database database says hello', 'other ECONNREFUSED']);
    expect(seen).toEqual({ database: 1, other: 0 });
    expect(result.stderr).toContain(
      `offline: network namespace. The command had only its own loopback, with the proxy and port ${ports.database} relayed into it; 1 request reached the tapes (1 answered)`,
    );
  });

  test('"network": "namespace" alone lets no port through but the proxy', async () => {
    const result = await runWithConfig({ network: 'namespace' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.lines).toEqual(['database ECONNREFUSED', 'other ECONNREFUSED']);
    expect(seen).toEqual({ database: 0, other: 0 });
    expect(result.stderr).toContain(
      'offline: network namespace. The command had only its own loopback, with the proxy relayed into it; 1 request reached the tapes (1 answered)',
    );
  });

  test('with neither, the guard alone keeps the replay offline and both ports are reached', async () => {
    const result = await runWithConfig({});
    expect(result.code, result.stderr).toBe(0);
    expect(result.lines).toHaveLength(2);
    expect(result.lines[0]).toBe('database database says hello');
    // The stand-in closes at once: the client sees the end, or a reset.
    expect(result.lines[1]).toMatch(/^other (closed|ECONNRESET)$/);
    expect(seen).toEqual({ database: 1, other: 1 });
    expect(result.stderr).toContain('offline: guard. 1 request reached the tapes (1 answered)');
  });
});
