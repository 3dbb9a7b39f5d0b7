import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { compileKeyRules, createHeader, loadTape, serializeTape, type Exchange } from 'modeltape/recordings';
import { capturedChatRequest, exchangeOf } from '../support/exchanges.js';
import { tempDir } from '../support/temp-dir.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// A recording process that opens the tape under new rules (a normalizer the old lines never
// touch) and appends COUNT exchanges, one write each. Args: TAPE WORKER COUNT.
const WORKER = `
import { TapeWriter, captureRequest, compileKeyRules, exchangeKey } from 'modeltape/recordings';
const [tape, worker, count] = process.argv.slice(1);
const rules = compileKeyRules({ headers: compileKeyRules().rules.headers, normalizers: [{ path: '.user' }] });
const writer = TapeWriter.open(tape, { keyRules: rules });
for (let index = 0; index < Number(count); index++) {
  const body = Buffer.from(JSON.stringify({ model: 'gpt-4o', user: 'u-' + index, messages: [{ role: 'user', content: 'worker ' + worker + ' call ' + index }] }));
  const request = captureRequest({ method: 'POST', path: '/v1/chat/completions', query: '', headers: { 'content-type': 'application/json' }, body }, rules);
  writer.append({ key: exchangeKey('openai', request, rules), ordinal: index, upstream: 'openai', source: 'live', request, response: { status: 200, headers: {}, body: { json: { worker: Number(worker), index } } } });
  writer.flush();
}
writer.close();
`;

function runWorker(tape: string, worker: number, count: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Started from the project, so `modeltape/recordings` resolves to this package.
    const child = spawn(process.execPath, ['--input-type=module', '-e', WORKER, tape, String(worker), String(count)], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

describe('recording into a tape keyed with other rules', () => {
  const dir = tempDir();

  test('several writers taking the tape over at once lose nothing: one new header, every old line kept, every new line there', async () => {
    const tape = `${dir}/shared.jsonl`;
    const old = compileKeyRules();
    const exchanges: Exchange[] = Array.from({ length: 30 }, (_, index) => {
      return exchangeOf(capturedChatRequest({ model: 'gpt-4o', messages: [{ role: 'user', content: `old ${index}` }] }, old), { old: index }, old);
    });
    writeFileSync(tape, serializeTape(createHeader(old.rules), exchanges));
    const oldLines = readFileSync(tape, 'utf8').trimEnd().split('\n').slice(1);

    const workers = 4;
    const perWorker = 40;
    const results = await Promise.all(Array.from({ length: workers }, (_, worker) => runWorker(tape, worker, perWorker)));
    expect(results).toEqual(Array.from({ length: workers }, () => ({ code: 0, stderr: '' })));

    const contents = loadTape(tape);
    expect(contents.header.keyRules.normalizers).toEqual([{ path: '.user' }]);
    expect(contents.exchanges).toHaveLength(30 + workers * perWorker);
    const lines = readFileSync(tape, 'utf8').trimEnd().split('\n');
    expect(lines.filter((line) => line.includes('"schemaVersion"'))).toHaveLength(1);
    expect(lines.slice(1, 31)).toEqual(oldLines);
    for (let worker = 0; worker < workers; worker++) {
      const indexes = contents.exchanges
        .map(({ exchange }) => exchange.response.body as { json: { worker?: number; index: number } })
        .filter((body) => body.json.worker === worker)
        .map((body) => body.json.index);
      expect(indexes).toEqual(Array.from({ length: perWorker }, (_, index) => index));
    }
    // No lock and no temporary file is left behind.
    expect(readdirSync(dir)).toEqual(['shared.jsonl']);
  });
});
