// A recording process for the concurrency and kill tests: appends exchanges to one tape through
// the published TapeWriter. Usage: node append-worker.mjs TAPE WORKER COUNT BODY_BYTES
import { TapeWriter, captureRequest, compileKeyRules, exchangeKey } from 'modeltape/recordings';

const [tape, worker, count, bodyBytes] = process.argv.slice(2);
const rules = compileKeyRules();
const writer = TapeWriter.open(tape, { keyRules: rules });
const filler = 'x'.repeat(Number(bodyBytes));

for (let index = 0; index < Number(count); index++) {
  const body = Buffer.from(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: `worker ${worker} call ${index} ${filler}` }] }));
  const request = captureRequest({ method: 'POST', path: '/v1/chat/completions', query: '', headers: { 'content-type': 'application/json' }, body }, rules);
  writer.append({
    _worker: Number(worker),
    key: exchangeKey('openai', request, rules),
    ordinal: 0,
    upstream: 'openai',
    source: 'live',
    request,
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: { worker: Number(worker), index } } },
  });
  // One write per exchange, so writers interleave as much as they can.
  writer.flush();
  if (process.send && index === 0) process.send('started');
}
writer.close();
