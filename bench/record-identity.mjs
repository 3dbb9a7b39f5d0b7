// Records the same exchanges (the wire samples of test/fixtures and odd bodies: pretty, literals,
// gzip, binary, text, empty, keys in plain sight, in base64, split across items) through the
// proxy of each build given, twice each, and says whether their tapes (the exchange lines and the
// refusals) are byte-identical: a check that a speed change left the bytes on tape alone.
//   node bench/record-identity.mjs OLD/dist NEW/dist
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

const samples = fileURLToPath(new URL('../test/fixtures/samples', import.meta.url));
const files = readdirSync(samples, { recursive: true })
  .filter((name) => /\.(json|sse|ndjson)$/.test(name))
  .sort();
const answers = files.map((name) => {
  const body = readFileSync(join(samples, name));
  const type = name.endsWith('.sse') ? 'text/event-stream' : name.endsWith('.ndjson') ? 'application/x-ndjson' : 'application/json';
  return { name, status: name.includes('error-400') ? 400 : 200, type, body };
});
const extra = [
  { name: 'pretty', type: 'application/json', body: Buffer.from(JSON.stringify({ b: 1, a: [1, 2, { c: 'é' }] }, null, 2) + '\n') },
  { name: 'literals', type: 'application/json', body: Buffer.from('{"id":9007199254740993,"x":1.0,"z":-0,"big":1e400,"s":"caf\\u00e9"}') },
  { name: 'spaced', type: 'application/json', body: Buffer.from('{"a": 1, "b": [1, 2], "10": 3, "9": 4}') },
  { name: 'order', type: 'application/json', body: Buffer.from('{"z":1,"2":2,"a":{"y":1,"1":0}}') },
  { name: 'dup', type: 'application/json', body: Buffer.from('{"a":1,"a":2}') },
  { name: 'gzip', type: 'application/json', encoding: 'gzip', body: gzipSync(Buffer.from('{"ok":true,"text":"compressed"}')) },
  { name: 'binary', type: 'application/octet-stream', body: Buffer.from([0, 1, 2, 255, 254, 0x80]) },
  { name: 'text', type: 'text/plain', body: Buffer.from('plain text answer\n') },
  { name: 'empty', type: 'application/json', body: Buffer.alloc(0) },
  { name: 'secret', type: 'application/json', body: Buffer.from('{"echo":"sk-proj-FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000"}') },
  {
    name: 'hidden',
    type: 'application/json',
    body: Buffer.from(JSON.stringify({ blob: Buffer.from('key=sk-proj-FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000').toString('base64') })),
  },
  { name: 'split', type: 'application/json', body: Buffer.from(JSON.stringify({ parts: ['sk-pr', 'oj-FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000'] })) },
  { name: 'url', type: 'application/json', body: Buffer.from('{"see":"https://example.test/a","b64":"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0MTIzNDU2Nzg5"}') },
];
for (const item of extra) answers.push({ status: 200, ...item });
const requests = answers.map((answer, index) => ({
  path: `/openai/v1/chat/completions${index % 3 === 0 ? '?alt=sse&api_key=sk-fake-not-real&n=1' : ''}`,
  headers: {
    'content-type': index % 5 === 4 ? 'text/plain' : 'application/json',
    authorization: 'Bearer sk-fake-not-a-real-key-0000000000',
    'x-answer': String(index),
  },
  body:
    index % 5 === 4
      ? `plain request ${index}`
      : JSON.stringify({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: `question ${index} //x` }],
          n: index,
          stream: answers[index].type === 'text/event-stream',
          10: 1,
          9: 2,
        }),
}));

const upstream = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const answer = answers[Number(request.headers['x-answer'])];
    const headers = { 'content-type': answer.type, 'x-request-id': 'req_fixed', date: 'Wed, 02 Dec 2026 03:00:00 GMT' };
    if (answer.encoding) headers['content-encoding'] = answer.encoding;
    if (answer.type === 'text/event-stream' || answer.type === 'application/x-ndjson') {
      response.writeHead(answer.status, headers);
      response.end(answer.body);
    } else {
      response.writeHead(answer.status, { ...headers, 'content-length': answer.body.length });
      response.end(answer.body);
    }
  });
});
await new Promise((done) => upstream.listen(0, '127.0.0.1', done));
const base = `http://127.0.0.1:${upstream.address().port}`;

const results = [];
for (const dist of process.argv.slice(2).map((path) => resolve(path))) {
  const { startProxy } = await import(pathToFileURL(join(dist, 'proxy/index.js')).href);
  const folder = mkdtempSync(join(tmpdir(), 'modeltape-identity-'));
  const tape = join(folder, 'tape.jsonl');
  const proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: base }, clock: () => 0, log: () => {} });
  for (let round = 0; round < 2; round++) {
    for (const request of requests) {
      const response = await fetch(`${proxy.url}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
      await response.arrayBuffer();
    }
  }
  const summary = await proxy.close();
  const lines = readFileSync(tape, 'utf8').split('\n');
  const exchanges = lines.slice(1).join('\n');
  rmSync(folder, { recursive: true, force: true });
  results.push(exchanges + summary.problems.map((problem) => problem.replace(/\S*modeltape-identity-\w+/g, 'TAPE')).join('\n'));
  console.log(
    `${dist}: recorded ${summary.recorded}, refused ${summary.refused}, ${lines.length - 2} lines, sha256 of the exchange lines ${createHash('sha256').update(exchanges).digest('hex')}`,
  );
}
upstream.close();
const identical = results.every((text) => text === results[0]);
console.log(identical ? 'IDENTICAL' : 'DIFFERENT');
if (!identical) process.exitCode = 1;
