import { execFileSync } from 'node:child_process';
import { fstatSync, ftruncateSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { formatSummary, startProxy, summaryFailed, type ProxyOptions, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// The proxy's internal file-system seam (not exported from any entry point).
const TAPE_FILE_SYSTEM = Symbol.for('modeltape.internal.tapeFileSystem');

// Each answer holds a distinct 6 KB text, so a 64 KB disk fills after a few exchanges.
async function bigAnswers(): Promise<StandInUpstream> {
  let count = 0;
  return startStandInUpstream(() => {
    count++;
    const content = `answer ${count} `.padEnd(6000, String.fromCharCode(97 + (count % 26)));
    return {
      body: JSON.stringify({
        id: `chatcmpl-${count}`,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      }),
    };
  });
}

async function ask(proxy: RunningProxy, index: number): Promise<{ status: number; content: string }> {
  const response = await fetch(`${proxy.baseUrls.openai}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: `question ${index}` }] }),
  });
  const body = (await response.json()) as { choices: [{ message: { content: string } }] };
  await new Promise((resolve) => setImmediate(resolve));
  return { status: response.status, content: body.choices[0].message.content };
}

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected by the test`), { code });
}

describe('a recording proxy whose tape cannot be written', () => {
  const dir = tempDir();
  let proxy: RunningProxy | undefined;
  let upstream: StandInUpstream | undefined;
  afterEach(async () => {
    await proxy?.close();
    await upstream?.close();
    proxy = undefined;
    upstream = undefined;
  });

  // Always runs: the fault is injected at the tape's write, as a disk that fills mid-line does.
  test('answers every client, counts each lost exchange, fails the run, and leaves the tape byte-identical to before each failed append', async () => {
    upstream = await bigAnswers();
    const tape = `${dir}/tape.jsonl`;
    let failing: string | undefined;
    const snapshots: Buffer[] = [];
    const fileSystem = {
      write(descriptor: number, bytes: Buffer, offset: number, length: number): number {
        if (failing === undefined) return writeSync(descriptor, bytes, offset, length);
        snapshots.push(readFileSync(tape));
        // Half of the line reaches the disk, then the write fails.
        if (offset === 0) return writeSync(descriptor, bytes, 0, Math.floor(length / 2));
        throw errno(failing);
      },
      size: (descriptor: number) => fstatSync(descriptor).size,
      truncate: (descriptor: number, length: number) => ftruncateSync(descriptor, length),
    };
    const logs: string[] = [];
    proxy = await startProxy({
      tape,
      mode: 'record',
      allowRecordInCi: true,
      log: (message) => logs.push(message),
      upstreams: { openai: upstream.url },
      [TAPE_FILE_SYSTEM]: fileSystem,
    } as ProxyOptions);
    const answers = [];
    answers.push(await ask(proxy, 0));
    for (const [index, code] of ['ENOSPC', 'EIO', 'EROFS'].entries()) {
      failing = code;
      answers.push(await ask(proxy, index + 1));
    }
    failing = undefined;
    answers.push(await ask(proxy, 4));
    const summary = await proxy.close();

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((answer) => answer.content.split(' ', 2).join(' '))).toEqual(['answer 1', 'answer 2', 'answer 3', 'answer 4', 'answer 5']);
    expect(summary.recorded).toBe(2);
    expect(summary.writeErrors).toBe(3);
    expect(summary.problems.filter((problem) => problem.startsWith('Could not write 1 exchange'))).toHaveLength(3);
    expect(summary.problems.join('\n')).toMatch(/the disk is full \(ENOSPC[\s\S]*an I\/O error \(EIO[\s\S]*read-only \(EROFS/);
    expect(summaryFailed(summary)).toBe(true);
    expect(formatSummary(summary)).toContain('3 exchanges lost to write errors');
    // Every failed append found the tape as the last good one left it, and left it so.
    expect(snapshots).toHaveLength(6);
    const written = loadTape(tape);
    expect(written.warnings).toEqual([]);
    expect(
      written.exchanges.map((entry) =>
        (entry.exchange.response.body as { text?: string; json?: { choices: [{ message: { content: string } }] } }).json?.choices[0].message.content
          .split(' ', 2)
          .join(' '),
      ),
    ).toEqual(['answer 1', 'answer 5']);
  });

  test('in auto mode does not prune after a lost write: the run was not clean', async () => {
    upstream = await bigAnswers();
    const tape = `${dir}/auto.jsonl`;
    const fileSystem = {
      write: () => {
        throw errno('ENOSPC');
      },
      size: (descriptor: number) => fstatSync(descriptor).size,
      truncate: (descriptor: number, length: number) => ftruncateSync(descriptor, length),
    };
    const logs: string[] = [];
    proxy = await startProxy({
      tape,
      mode: 'auto',
      prune: true,
      allowRecordInCi: true,
      log: (message) => logs.push(message),
      upstreams: { openai: upstream.url },
      [TAPE_FILE_SYSTEM]: fileSystem,
    } as ProxyOptions);
    expect((await ask(proxy, 0)).status).toBe(200);
    const summary = await proxy.close();
    expect(summary.writeErrors).toBe(1);
    expect(summary.pruned).toBe(0);
    expect(logs.join('\n')).toContain('not pruning');
  });
});

// On a real, small file system: the kernel's own ENOSPC and EROFS. Needs mount (root on Linux).
const mountPoint = mkdtempSync(join(tmpdir(), 'modeltape-tmpfs-'));
const mountRefused = tryMount(mountPoint);
function tryMount(point: string): string | undefined {
  if (process.platform !== 'linux') return `mounting a tmpfs needs Linux (this is ${process.platform})`;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', point], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `mount -t tmpfs was refused (${String((error as { stderr?: Buffer }).stderr ?? error).trim()}); the injected-fault tests above still ran`;
  }
}
afterAll(() => {
  if (mountRefused === undefined) execFileSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

describe.skipIf(mountRefused !== undefined)(`on a 64 KB tmpfs${mountRefused === undefined ? '' : ` (skipped: ${mountRefused})`}`, () => {
  let upstream: StandInUpstream | undefined;
  afterEach(async () => {
    await upstream?.close();
    upstream = undefined;
  });

  test('a full disk: every client is answered, every lost exchange is counted, and the tape holds only whole lines', async () => {
    upstream = await bigAnswers();
    const tape = join(mountPoint, 'full', 'tape.jsonl');
    mkdirSync(join(mountPoint, 'full'));
    const proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, log: () => undefined, upstreams: { openai: upstream.url } });
    const answers = [];
    for (let index = 0; index < 16; index++) answers.push(await ask(proxy, index));
    const summary = await proxy.close();
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(summary.recorded).toBeGreaterThan(0);
    expect(summary.writeErrors).toBeGreaterThan(0);
    expect(summary.recorded + summary.writeErrors).toBe(16);
    expect(summary.problems.join('\n')).toContain('ENOSPC');
    expect(summaryFailed(summary)).toBe(true);
    const written = loadTape(tape);
    expect(written.warnings).toEqual([]);
    expect(written.exchanges).toHaveLength(summary.recorded);
    expect(readFileSync(tape, 'utf8').endsWith('\n')).toBe(true);
    rmSync(join(mountPoint, 'full'), { recursive: true });
  });

  test('a read-only file system: recording is refused at start with the reason, before any request', async () => {
    mkdirSync(join(mountPoint, 'ro'));
    execFileSync('mount', ['-o', 'remount,ro', mountPoint]);
    try {
      await expect(startProxy({ tape: join(mountPoint, 'ro', 'tape.jsonl'), mode: 'record', allowRecordInCi: true, log: () => undefined })).rejects.toThrow(
        /EROFS/,
      );
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mountPoint]);
    }
  });
});
