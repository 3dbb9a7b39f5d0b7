import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { captureRequest, compileKeyRules, createHeader, defaultKeyRules, exchangeKey, serializeTape, type Exchange } from 'modeltape/recordings';

/** One exchange of a tape written by hand: what the client sent to `/openai…`, and the answer. */
export interface HandWrittenExchange {
  /** The path after /openai. @default '/v1/chat/completions' */
  path?: string;
  /** The request's JSON body, sent compact. */
  request: unknown;
  /** A JSON answer, or SSE frames, recorded `everyMs` apart (@default 1). */
  response: { json: unknown } | { sse: string[]; everyMs?: number };
}

/**
 * Writes a tape whose exchanges hold what the recorder would refuse or never see (a key, a control
 * character), keyed as the recorder keys them so a replay answers from it; and `requests.json`
 * beside it, the requests as `replayingSuite` sends them.
 */
export function writeTapeByHand(dir: string, name: string, exchanges: readonly HandWrittenExchange[]): { tape: string; requests: string } {
  const rules = defaultKeyRules();
  const compiled = compileKeyRules(rules);
  const requests = exchanges.map((exchange) => ({ path: exchange.path ?? '/v1/chat/completions', body: JSON.stringify(exchange.request) }));
  const lines: Exchange[] = exchanges.map((exchange, index) => {
    const { path, body } = requests[index]!;
    const request = captureRequest({ method: 'POST', path, query: '', headers: { 'content-type': 'application/json' }, body: Buffer.from(body) }, compiled);
    const answer = exchange.response;
    const response =
      'sse' in answer
        ? {
            status: 200,
            headers: { 'content-type': 'text/event-stream' },
            stream: { format: 'sse' as const, frames: answer.sse.map((text, at) => ({ atMs: at * (answer.everyMs ?? 1), text })) },
          }
        : { status: 200, headers: { 'content-type': 'application/json' }, body: { json: answer.json } };
    return { key: exchangeKey('openai', request, compiled), ordinal: 0, upstream: 'openai', source: 'live', recordedAt: '2026-01-05', request, response };
  });
  const tape = join(dir, `${name}.jsonl`);
  writeFileSync(tape, serializeTape(createHeader(rules), lines));
  const file = join(dir, `${name}.requests.json`);
  writeFileSync(file, JSON.stringify(requests));
  return { tape, requests: file };
}

/**
 * A suite that sends the requests of a `requests.json` through the proxy (OPENAI_BASE_URL) and
 * passes whatever the answers say: `node suite.mjs REQUESTS [--drift]`. With `--drift`, each
 * request's first `"row ` becomes `"again row `, so every request drifts from its recording.
 */
export function writeReplayingSuite(dir: string): string {
  const file = join(dir, 'suite.mjs');
  writeFileSync(
    file,
    `import { readFileSync } from 'node:fs';
const base = process.env.OPENAI_BASE_URL.replace(/\\/openai\\/v1$/, '');
const drift = process.argv.includes('--drift');
for (const request of JSON.parse(readFileSync(process.argv[2], 'utf8'))) {
  const body = drift ? request.body.replace('"row ', '"again row ') : request.body;
  const response = await fetch(base + '/openai' + request.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await response.arrayBuffer();
}
`,
  );
  return file;
}
