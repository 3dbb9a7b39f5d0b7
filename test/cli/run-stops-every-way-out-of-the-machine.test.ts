import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import { offMachineStandIn } from '../support/off-machine-stand-in.js';
import { tempDir } from '../support/temp-dir.js';

// No network here: every process below gets the test's off-machine preloads, so a lookup of a
// name off loopback answers a stand-in on 127.0.0.1 and a connection off loopback reaches it,
// never DNS or a provider; the stand-in hears only what the run lets through on purpose. Every
// escape must still be caught before its DNS lookup (the scripts count lookups), as in an offline
// CI, where DNS fails first and a guard that waited for a connection would count nothing; each is
// named with its host, process and way out.
describe('modeltape run in replay keeps every process it starts on the machine', () => {
  const offMachine = offMachineStandIn();
  const dir = tempDir({ inProject: true });

  test('stops the official SDKs, fetch, undici, node:https, net, a local provider, a worker and a grandchild before DNS, and fails naming each', async () => {
    const script = `${dir}/escape.mjs`;
    writeFileSync(
      `${dir}/worker.mjs`,
      "fetch('https://api.openai.com/v1/responses', { method: 'POST', body: '{}' }).then(() => process.exit(0), (error) => { console.log('worker', error.cause?.code); process.exit(0); });\n",
    );
    writeFileSync(
      script,
      `import https from 'node:https';
import net from 'node:net';
import dns from 'node:dns';
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { request } from 'undici';
let lookups = 0;
const lookup = dns.lookup;
dns.lookup = (...args) => { lookups++; return lookup(...args); };
const attempt = async (name, send) => {
  try { await send(); console.log(name, 'ANSWERED'); }
  catch (error) { console.log(name, error?.cause?.code ?? error?.code ?? error?.constructor?.name); }
};
await attempt('openai', () => new OpenAI({ baseURL: 'https://api.openai.com/v1', maxRetries: 0 }).models.list());
await attempt('anthropic', () => new Anthropic({ baseURL: 'https://api.anthropic.com', maxRetries: 0 }).models.list());
await attempt('fetch', () => fetch('https://generativelanguage.googleapis.com/v1beta/models'));
await attempt('undici', () => request('https://api.openai.com/v1/embeddings', { method: 'POST', body: '{}' }));
await attempt('https', () => new Promise((resolve, reject) => https.get('https://api.anthropic.com/v1/messages', resolve).on('error', reject)));
await attempt('net', () => new Promise((resolve, reject) => net.connect(443, 'api.openai.com', resolve).on('error', reject)));
await attempt('ollama', () => fetch('http://127.0.0.1:11434/api/chat', { method: 'POST', body: '{}' }));
console.log('lookups', lookups);
await attempt('outside', () => fetch('https://example.com/'));
await new Promise((resolve) => new Worker(new URL('./worker.mjs', import.meta.url)).on('exit', resolve));
const grandchild = spawnSync(process.execPath, ['-e', "fetch('https://api.anthropic.com/v1/complete').then(() => console.log('ANSWERED'), (error) => console.log(error.cause.code))"], { encoding: 'utf8' });
console.log('grandchild', grandchild.stdout.trim());
`,
    );
    const result = await runMain(['run', '--', process.execPath, script], { env: offMachine.env() });
    // Each way out failed as a refused connection, with the guard's code, and asked no DNS.
    for (const name of ['fetch', 'undici', 'https', 'net', 'ollama']) expect(result.stdout, name).toContain(`${name} MODELTAPE_BLOCKED`);
    for (const name of ['openai', 'anthropic']) expect(result.stdout, name).toMatch(new RegExp(`${name} (APIConnectionError|MODELTAPE_BLOCKED)`));
    expect(result.stdout).toContain('lookups 0');
    expect(result.stdout).toContain('worker MODELTAPE_BLOCKED');
    expect(result.stdout).toContain('grandchild MODELTAPE_BLOCKED');
    expect(result.stdout).not.toContain('ANSWERED');

    expect(result.code).toBe(1);
    const who = `node ${script.slice(script.indexOf('test-output'))})`;
    expect(result.stderr).toContain('connections to a provider tried to leave the machine and were stopped before any byte was sent:');
    for (const line of [
      'fetch → api.openai.com/v1/models',
      'fetch → api.anthropic.com/v1/models',
      'fetch → generativelanguage.googleapis.com/v1beta/models',
      'undici → api.openai.com/v1/embeddings',
      'http → api.anthropic.com/v1/messages',
      'net → api.openai.com',
      'fetch → 127.0.0.1:11434/api/chat',
    ]) {
      expect(result.stderr, line).toMatch(
        new RegExp(`${line.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(pid \\d+ ${who.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`),
      );
    }
    expect(result.stderr).toMatch(/fetch → api\.openai\.com\/v1\/responses \(pid \d+ thread \d+ node /);
    expect(result.stderr).toMatch(/fetch → api\.anthropic\.com\/v1\/complete \(pid \d+ node\)/);
    // A host that is no provider is let through (to the stand-in, which answers nothing) and listed, not failed.
    expect(result.stderr).toMatch(
      /connections to other hosts off this machine \(not providers; listed, not failing\):\n {4}fetch → example\.com:443 \(pid \d+/,
    );
    // The guard stopped every attempt on a provider: the stand-in heard only the outside host.
    expect(await offMachine.heard()).toEqual(['example.com']);
  });

  const hasCommand = (name: string): boolean => {
    try {
      execFileSync('sh', ['-c', `command -v ${name}`]);
      return true;
    } catch {
      return false;
    }
  };

  test('stops curl and Python through HTTPS_PROXY: the proxy refuses CONNECT to every host off loopback and counts providers as escapes', async () => {
    // Both ship on this machine and on CI's; a machine without them must not pass silently.
    expect(hasCommand('curl'), 'curl').toBe(true);
    expect(hasCommand('python3'), 'python3').toBe(true);
    const script = `${dir}/others.sh`;
    writeFileSync(
      script,
      [
        'curl -sS --max-time 10 https://api.openai.com/v1/models -o /dev/null; echo "curl $?"',
        'curl -sS --max-time 10 http://api.anthropic.com/v1/messages -o /dev/null -w "%{http_code}\\n"',
        'curl -sS --max-time 10 https://example.com/ -o /dev/null; echo "curl-outside $?"',
        `python3 -c "import urllib.request
try:
    urllib.request.urlopen('https://generativelanguage.googleapis.com/v1beta/models', timeout=10)
    print('python ANSWERED')
except Exception as error:
    print('python', type(error).__name__)"`,
        '',
      ].join('\n'),
    );
    const result = await runMain(['run', '--allow-empty', '--', 'sh', script], { env: offMachine.env() });
    expect(result.stdout).toMatch(/curl 56\b/); // curl: CONNECT refused by the proxy (a 403)
    expect(result.stdout).toContain('403');
    expect(result.stdout).not.toContain('ANSWERED');
    expect(result.stdout).toMatch(/python (URLError|OSError|HTTPError)/);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/proxy → api\.openai\.com \(user-agent curl\//);
    expect(result.stderr).toMatch(/proxy → api\.anthropic\.com\/v1\/messages \(user-agent curl\//);
    expect(result.stderr).toMatch(/proxy → generativelanguage\.googleapis\.com/);
    expect(result.stderr).toMatch(/proxy → example\.com:443 \(user-agent curl\/[^)]*\), refused by the proxy/);
    // Python's lookups answer the stand-in (curl's answer 127.0.0.1:443 and :80): the proxy took all four.
    expect(await offMachine.heard()).toEqual([]);
  });

  test("catches the OpenAI Agents SDK's trace exporter (it ignores OPENAI_BASE_URL) and says how to turn it off; by default a replay turns it off", async () => {
    const script = `${dir}/agents.mjs`;
    writeFileSync(
      script,
      "import { withTrace, getGlobalTraceProvider } from '@openai/agents';\nawait withTrace('a replayed run', async () => {});\nawait getGlobalTraceProvider().forceFlush();\n",
    );
    // The SDK also turns tracing off under NODE_ENV=test, which the test runner sets.
    const traced = await runMain(['run', '--allow-empty', '--', process.execPath, script], {
      env: offMachine.env({ OPENAI_AGENTS_DISABLE_TRACING: '0', NODE_ENV: 'development' }),
    });
    expect(traced.code).toBe(1);
    expect(traced.stderr).toMatch(
      /fetch → api\.openai\.com\/v1\/traces\/ingest \(pid \d+ node [^)]*agents\.mjs\): the OpenAI Agents SDK's trace exporter \(it ignores OPENAI_BASE_URL\)/,
    );
    expect(traced.stderr).toContain('OPENAI_AGENTS_DISABLE_TRACING=1');

    const quiet = await runMain(['run', '--allow-empty', '--', process.execPath, script], { env: offMachine.env({ NODE_ENV: 'development' }) });
    expect(quiet.stderr).not.toContain('tried to leave the machine');
    expect(quiet.code).toBe(0);
    expect(await offMachine.heard()).toEqual([]);
  });

  test("LangChain's ChatOpenAI, which reads a leftover OPENAI_API_BASE before OPENAI_BASE_URL, replays from the run's proxy", async () => {
    const tape = `${dir}/langchain.jsonl`;
    const script = `${dir}/langchain.mjs`;
    writeFileSync(
      script,
      "import { ChatOpenAI } from '@langchain/openai';\nconst answer = await new ChatOpenAI({ model: 'gpt-4.1-nano', maxRetries: 0 }).invoke('hi');\nconsole.log('answer', String(answer.content).slice(0, 20));\n",
    );
    // Record what ChatOpenAI sends, through a proxy in record mode.
    await recordTape(tape, async ({ openai }) => {
      // Asynchronously: the recording proxy answers from this process.
      await promisify(execFile)(process.execPath, [script], {
        env: { ...process.env, ...offMachine.env({ OPENAI_API_BASE: openai, OPENAI_API_KEY: 'fake-key' }) },
      });
    });
    const result = await runMain(['run', '--tape', tape, '--', process.execPath, script], {
      env: offMachine.env({ OPENAI_API_BASE: 'https://api.openai.com/v1' }),
    });
    expect(result.stderr).toContain('1 hit, 0 misses');
    expect(result.stdout).toContain('answer ');
    expect(result.code).toBe(0);
    expect(await offMachine.heard()).toEqual([]);
  });
});
