import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.js';
import { recordTape } from '../support/record-tape.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';
import { tempDir } from '../support/temp-dir.js';

// The guard reports what it stopped to a file in the run's temporary folder. When that disk is
// full, the escape is still stopped, but the run cannot learn of it from the file: the process
// says so through a pipe (which takes no space), and the run fails instead of calling itself clean.
const disk: SmallDisk = mountSmallDisk(256 * 1024);

describe.skipIf(!disk.mounted)('a run whose temporary folder is on a full disk', () => {
  const dir = tempDir({ inProject: true });
  let provider: Server;
  let connections = 0;

  beforeAll(async () => {
    // The "provider": a stand-in on loopback, named as the openai upstream, so the guard treats it as one.
    provider = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => provider.close(() => resolve()));
    if (disk.mounted) disk.unmount();
  });

  test('a blocked request whose report could not be written fails the run, naming why, and nothing reaches the provider', async () => {
    const tmp = (disk as Extract<SmallDisk, { mounted: true }>).dir;
    const tape = `${dir}/tape.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
      });
    });
    const port = (provider.address() as { port: number }).port;
    writeFileSync(
      `${dir}/fills-then-escapes.mjs`,
      `import { writeFileSync } from 'node:fs';
import OpenAI from 'openai';
await new OpenAI({ maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
// Fill the disk the run's report is on.
try { for (let i = 0; ; i++) writeFileSync(process.env.TMPDIR + '/filler-' + i, Buffer.alloc(16 * 1024)); } catch {}
// Then go around the proxy, straight to the provider; the guard stops it, and swallowing the error passes the command.
await fetch('http://127.0.0.1:${port}/v1/models').catch(() => undefined);
`,
    );
    const result = await runCli(
      ['run', '--tape', tape, '--upstream', `openai=http://127.0.0.1:${port}`, '--', process.execPath, `${dir}/fills-then-escapes.mjs`],
      {
        cwd: dir,
        env: { TMPDIR: tmp },
      },
    );
    expect(connections).toBe(0);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/1 record the command's processes could not write to the run's report \(escape ENOSPC\)/);
    expect(result.stderr).toContain('free space there, or point TMPDIR at a disk with room');
    expect(result.stderr).not.toContain('no guarded process reached a provider');
  });
});
