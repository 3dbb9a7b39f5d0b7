import { writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { offMachineStandIn } from '../support/off-machine-stand-in.js';
import { startForwardProxyStandIn } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// Each case was found by trying to get around the run's guard; each passed (exit 0) or leaked
// before its fix. Every process below gets the test's off-machine preloads: a lookup of a name off
// loopback answers a stand-in on 127.0.0.1, and what the guard let through would reach it.
describe('modeltape run against the ways around its guard', () => {
  const offMachine = offMachineStandIn();
  const dir = tempDir({ inProject: true });
  const FAKE_KEY = fakeOpenAiKey();

  test('a CONNECT tunnel through a local forward proxy is stopped before the proxy hears of it', async () => {
    const forward = await startForwardProxyStandIn();
    const script = `${dir}/tunnel.mjs`;
    writeFileSync(
      script,
      `import { ProxyAgent, fetch } from 'undici';
const dispatcher = new ProxyAgent(process.env.CORP_PROXY);
for (const url of ['https://api.openai.com/v1/models', 'http://api.anthropic.com/v1/messages']) {
  try { await fetch(url, { dispatcher }); console.log('ANSWERED'); } catch (error) { console.log(error.cause?.code ?? error.message); }
}
`,
    );
    const result = await runMain(['run', '--allow-empty', '--', process.execPath, script], { env: offMachine.env({ CORP_PROXY: forward.url }) });
    await forward.close();
    expect(result.stdout.trim().split('\n')).toEqual(['MODELTAPE_BLOCKED', 'MODELTAPE_BLOCKED']);
    expect(forward.heard).toEqual([]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/undici → api\.openai\.com \(pid/);
    expect(result.stderr).toMatch(/undici → api\.anthropic\.com \(pid/);
    expect(await offMachine.heard()).toEqual([]);
  });

  test('a local provider is guarded under every spelling of loopback, and host and port tricks are read as DNS and Node read them', async () => {
    const script = `${dir}/spellings.mjs`;
    writeFileSync(
      script,
      `import net from 'node:net';
const attempt = async (name, send) => { try { await send(); console.log(name, 'ANSWERED'); } catch (error) { console.log(name, error.cause?.code ?? error.code); } };
for (const host of ['localhost', '[::1]', '0.0.0.0']) await attempt(host, () => fetch('http://' + host + ':11434/api/chat', { method: 'POST', body: '{}' }));
const failed = (socket) => new Promise((resolve) => socket.on('error', (error) => resolve(error.code)));
console.log('fullwidth', await failed(net.connect({ host: '\\uff41\\uff50\\uff49.openai.com', port: 443 })));
console.log('hex port', await failed(new net.Socket().connect('0x1bb', 'api.openai.com')));
`,
    );
    const result = await runMain(['run', '--allow-empty', '--', process.execPath, script], { env: offMachine.env() });
    expect(result.stdout.trim().split('\n')).toEqual([
      'localhost MODELTAPE_BLOCKED',
      '[::1] MODELTAPE_BLOCKED',
      '0.0.0.0 MODELTAPE_BLOCKED',
      'fullwidth MODELTAPE_BLOCKED',
      'hex port MODELTAPE_BLOCKED',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('5 connections to a provider tried to leave the machine');
    expect(await offMachine.heard()).toEqual([]);
  });

  test('a worker given an environment of its own is guarded, and a process whose NODE_OPTIONS lost the preload is guarded from its first openTape on', async () => {
    const tape = `${dir}/lost-preload.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
      });
    });
    writeFileSync(
      `${dir}/worker.mjs`,
      "import { parentPort } from 'node:worker_threads';\nfetch('https://api.openai.com/v1/models').then(() => parentPort.postMessage('ANSWERED'), (error) => parentPort.postMessage(error.cause?.code));\n",
    );
    const script = `${dir}/lost.mjs`;
    writeFileSync(
      script,
      `import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
console.log('worker', await new Promise((resolve) => new Worker(new URL('./worker.mjs', import.meta.url), { env: {} }).on('message', resolve)));
// A script that replaces NODE_OPTIONS (cross-env NODE_OPTIONS=--experimental-vm-modules jest does);
// the test's own off-machine preload (a --require) is kept: only modeltape's is lost.
const child = spawnSync(process.execPath, ['--input-type=module', '-e', \`
import { openTape } from 'modeltape/replay';
const session = await openTape(\${JSON.stringify(${JSON.stringify(tape)})}, { config: false });
try { await fetch('https://api.anthropic.com/v1/messages'); console.log('ANSWERED'); } catch (error) { console.log(error.cause?.code); }
await session.close().catch(() => undefined);
\`], { env: { ...process.env, NODE_OPTIONS: ${JSON.stringify(offMachine.env({ NODE_OPTIONS: '--max-old-space-size=256' }).NODE_OPTIONS)} }, encoding: 'utf8', cwd: ${JSON.stringify(dir)} });
console.log('child', child.stdout.trim(), child.stderr.trim().slice(0, 200));
`,
    );
    const result = await runMain(['run', '--allow-empty', '--', process.execPath, script], { env: offMachine.env() });
    expect(result.stdout).toContain('worker MODELTAPE_BLOCKED');
    expect(result.stdout).toMatch(/child MODELTAPE_BLOCKED/);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/fetch → api\.openai\.com\/v1\/models \(pid \d+ thread \d+ node /);
    // Counted once, by the process's guard, though the session's guard saw it too.
    expect(result.stderr).toMatch(/fetch → api\.anthropic\.com\/v1\/messages \(pid \d+ node\)\n/);
    expect(await offMachine.heard()).toEqual([]);
  });

  test('a session that asks to record inside a replay run is refused, and a removed report file fails the run', async () => {
    const tape = `${dir}/recording.jsonl`;
    const script = `${dir}/records.mjs`;
    writeFileSync(
      script,
      `import { openTape } from 'modeltape/replay';\ntry { await openTape(${JSON.stringify(tape)}, { mode: 'auto', config: false }); console.log('OPENED'); } catch (error) { console.log(error.code); }\n`,
    );
    const refused = await runMain(['run', '--allow-empty', '--', process.execPath, script], { env: offMachine.env() });
    expect(refused.stdout.trim()).toBe('recording_in_replay_run');

    const cleaner = `${dir}/cleans.mjs`;
    writeFileSync(
      cleaner,
      "import { rmSync } from 'node:fs';\nimport { dirname } from 'node:path';\nrmSync(dirname(process.env.MODELTAPE_REPORT), { recursive: true, force: true });\ntry { await fetch('https://api.openai.com/v1/models'); } catch {}\n",
    );
    const cleaned = await runMain(['run', '--allow-empty', '--', process.execPath, cleaner], { env: offMachine.env() });
    expect(cleaned.code).toBe(1);
    expect(cleaned.stderr).toContain("the run's report file was removed while the command ran");
    expect(await offMachine.heard()).toEqual([]);
  });

  test('no key reaches the summary: not from an argument, a failing command line, or a user-agent', async () => {
    const script = `${dir}/leaky.mjs`;
    writeFileSync(
      script,
      "import { execFileSync } from 'node:child_process';\ntry { await fetch('https://api.openai.com/v1/models'); } catch {}\ntry { execFileSync('curl', ['-sS', '--max-time', '5', '-A', `curl/8 ${process.argv[1]}`, 'https://api.anthropic.com/v1/models']); } catch {}\nprocess.exit(3);\n",
    );
    const result = await runMain(['run', '--', process.execPath, '-e', `import(${JSON.stringify(script)})`, FAKE_KEY], { env: offMachine.env() });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('tried to leave the machine');
    expect(result.stderr).toContain('(user-agent curl/8)');
    expect(result.stderr).toContain('modeltape: the command (');
    expect(result.stderr).not.toContain(FAKE_KEY);
    expect(result.stderr).not.toContain('FAKEFAKE');
    expect(await offMachine.heard()).toEqual([]);
  });
});
