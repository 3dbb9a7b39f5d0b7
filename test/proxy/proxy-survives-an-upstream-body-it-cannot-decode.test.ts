import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir({ inProject: true });

// Run in a child process: the failure is an uncaught exception that kills the process.
test('a recording proxy survives an upstream response labelled gzip whose body is not gzip', () => {
  const script = `${dir}/bad-gzip.mjs`;
  writeFileSync(
    script,
    `import { createServer } from 'node:http';
import { startProxy } from 'modeltape/proxy';
const upstream = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': '0' });
    response.end();
  });
});
await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const proxy = await startProxy({ tape: ${JSON.stringify(`${dir}/tape.jsonl`)}, mode: 'record', allowRecordInCi: true, log: () => undefined, upstreams: { openai: 'http://127.0.0.1:' + upstream.address().port } });
const response = await fetch(proxy.url + '/openai/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"x"}' });
await response.arrayBuffer();
await new Promise((resolve) => setTimeout(resolve, 100));
const summary = await proxy.close();
upstream.close();
console.log('survived', JSON.stringify({ recorded: summary.recorded, refused: summary.refused }));
`,
  );
  const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 20_000 });
  expect(run.stderr).not.toMatch(/unexpected end of file/);
  expect(run.status).toBe(0);
  expect(run.stdout).toContain('survived');
});
