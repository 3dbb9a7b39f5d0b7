import { createSocket } from 'node:dgram';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { namespaceSupport } from '../../dist/proxy/internal.js';
import { runMain } from '../support/cli.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

const support = namespaceSupport();
const available = !('reason' in support);
// Under CI (Linux, as .ci/run runs) the namespace must be there: a skip would hide a regression.
if (!available && process.env.CI) throw new Error(`CI must test the network namespace, but: ${support.reason}`);

// Every way out the guard cannot see, tried from inside the command against stand-ins on this
// machine's loopback, outside the namespace: each must see nothing. Only the proxy and the
// allowed port get through.
describe.skipIf(!available)('modeltape run --network namespace', () => {
  const dir = tempDir({ inProject: true, scope: 'file' });
  const seen = { tcp: 0, udp: 0, allowed: 0 };
  let provider: Server;
  let database: Server;
  let udp: ReturnType<typeof createSocket>;
  const ports = { provider: 0, udp: 0, database: 0 };

  beforeAll(async () => {
    // A "provider" that anything escaping would reach, and a database the suite may use.
    provider = createServer((socket) => {
      seen.tcp++;
      socket.destroy();
    });
    database = createServer((socket) => {
      seen.allowed++;
      socket.end('database says hello');
    });
    for (const server of [provider, database]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports.provider = (provider.address() as { port: number }).port;
    ports.database = (database.address() as { port: number }).port;
    udp = createSocket('udp4');
    udp.on('message', () => seen.udp++);
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    ports.udp = udp.address().port;

    await recordTape(`${dir}/tape.jsonl`, async ({ openai }) => {
      await new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
      });
    });
    // Each escape prints one line: its name and what happened.
    writeFileSync(
      `${dir}/escape.mjs`,
      `import { connect } from 'node:net';
import { lookup } from 'node:dns/promises';
import { createSocket } from 'node:dgram';
const [how, port] = process.argv.slice(2);
const tcp = (host) => new Promise((resolve) => {
  const socket = connect(Number(port), host);
  socket.once('connect', () => { socket.destroy(); resolve('connected'); });
  socket.once('error', (error) => resolve(error.code));
});
let result;
if (how === 'udp') {
  const socket = createSocket('udp4');
  result = await new Promise((resolve) => socket.send('x', Number(port), '127.0.0.1', (error) => { socket.close(); resolve(error ? error.code : 'sent'); }));
} else if (how === 'lookup') {
  const { address } = await lookup('localhost', { family: 4 });
  result = await tcp(address);
} else result = await tcp('127.0.0.1');
console.log(how + ' ' + result);
`,
    );
    writeFileSync(
      `${dir}/escape.py`,
      `import http.client, sys
try:
    connection = http.client.HTTPConnection('127.0.0.1', int(sys.argv[1]), timeout=5)
    connection.request('GET', '/v1/models')
    print('python connected')
except OSError as error:
    print('python', type(error).__name__)
`,
    );
    // The command: the agent's real request, then every escape, each from a process the guard
    // cannot see where it can be; then the allowed database.
    writeFileSync(
      `${dir}/suite.sh`,
      `set -u
node --input-type=module -e "const O=(await import('openai')).default; const a=await new O({maxRetries:0}).chat.completions.create({model:'gpt-4o',messages:[{role:'user',content:'hi'}]}); console.log('agent', a.choices.length)"
node ${dir}/escape.mjs literal ${ports.provider}
node ${dir}/escape.mjs lookup ${ports.provider}
node ${dir}/escape.mjs udp ${ports.udp}
env -i PATH="$PATH" HOME="$HOME" node ${dir}/escape.mjs env-i ${ports.provider}
NODE_OPTIONS= node ${dir}/escape.mjs no-node-options ${ports.provider}
python3 ${dir}/escape.py ${ports.provider}
node -e "require('net').connect(${ports.database}, '127.0.0.1').on('data', (d) => { console.log('database', String(d)); process.exit(0); }).on('error', (e) => { console.log('database', e.code); })"
`,
    );
  });
  afterAll(async () => {
    for (const server of [provider, database]) await new Promise<void>((resolve) => server.close(() => resolve()));
    udp.close();
  });

  test('no escape reaches a stand-in outside; the proxy and the allowed port do; the summary says the namespace held', async () => {
    const result = await runMain(
      ['run', '--tape', `${dir}/tape.jsonl`, '--network', 'namespace', '--allow-port', String(ports.database), '--', 'sh', `${dir}/suite.sh`],
      {
        cwd: dir,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toContain('agent 1');
    for (const how of ['literal', 'lookup', 'env-i', 'no-node-options']) expect(lines).toContain(`${how} ECONNREFUSED`);
    // A datagram leaves no error behind, but nothing receives it.
    expect(lines.find((line) => line.startsWith('udp '))).toBeDefined();
    expect(lines).toContain('python ConnectionRefusedError');
    expect(lines).toContain('database database says hello');
    expect(seen).toEqual({ tcp: 0, udp: 0, allowed: 1 });
    expect(result.stderr).toMatch(
      /offline: network namespace\. The command had only its own loopback, with the proxy and port \d+ relayed into it; 1 request reached the tapes \(1 answered\)/,
    );
  });

  test('under the guard alone the same escapes get out, which is why the namespace exists', async () => {
    seen.tcp = seen.udp = seen.allowed = 0;
    const result = await runMain(['run', '--tape', `${dir}/tape.jsonl`, '--', 'sh', `${dir}/suite.sh`], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(seen.tcp).toBeGreaterThanOrEqual(4);
    expect(seen.udp).toBe(1);
    expect(result.stderr).toContain('offline: guard. 1 request reached the tapes (1 answered)');
  });

  test('--allow-port without a namespace is a usage error that says what to add', async () => {
    const result = await runMain(['run', '--tape', `${dir}/tape.jsonl`, '--allow-port', '5432', '--', 'true']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('add --network namespace-or-guard');
  });
});
