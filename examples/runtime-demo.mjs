// `npm run example:runtime`: the journaled runtime and its testkit, with no key and no network.
//   1. an agent runs on a SQLite journal, its model a FakeProvider: it looks a parcel up and
//      tells the customer;
//   2. a strict replay reads every effect back: the same answer, no model call, no tool run;
//   3. the crash harness kills the loop right after the message went out, resumes it in a fresh
//      runtime, waits for an operator's approval to send again, and checks its invariants.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeProvider } from 'modeltape/fake-provider';
import { Runtime, SqliteJournalStore, assertReplayWasNotBackstopped, sequentialIds, steppingClock } from 'modeltape/runtime';
import { crashAt, runScenario } from 'modeltape/testkit';

const agent = {
  name: 'parcel-desk',
  provider: 'openai',
  model: 'gpt-4o',
  system: 'You answer questions about parcels. Look the parcel up, then tell the customer.',
  tools: ['lookup_parcel', 'send_message'],
};

function tools(counts) {
  return [
    {
      name: 'lookup_parcel',
      description: 'Finds where a parcel is.',
      sideEffect: 'read',
      parameters: { type: 'object', properties: { parcel: { type: 'string' } }, required: ['parcel'], additionalProperties: false },
      run: ({ parcel }) => (counts.lookup++, { parcel, city: 'Lyon' }),
    },
    {
      name: 'send_message',
      description: 'Sends a message to the customer.',
      sideEffect: 'remote_mutation',
      parameters: { type: 'object', properties: { to: { type: 'string' }, text: { type: 'string' } }, required: ['to', 'text'], additionalProperties: false },
      // The operation id is the same for every attempt at this call: an idempotency key for the outbox.
      run: async (_args, ctx) => (counts.send++, { sent: true, operation: ctx.operationId, at: await ctx.now() }),
    },
  ];
}

/** The model, as rules: asked the same question again, it answers the same way. */
function model() {
  const fake = new FakeProvider();
  const last = (turn) => turn.exchanges.at(-1)?.name;
  fake.when((turn) => turn.exchanges.length === 0, { always: true }).willCallTool('lookup_parcel', { parcel: 'P-1' });
  fake.when((turn) => last(turn) === 'lookup_parcel', { always: true }).willCallTool('send_message', { to: 'customer', text: 'Your parcel P-1 is in Lyon.' });
  fake.when((turn) => last(turn) === 'send_message', { always: true }).willSay('Parcel P-1 is in Lyon; I told the customer.');
  return fake;
}

const dir = mkdtempSync(join(tmpdir(), 'modeltape-runtime-demo-'));
try {
  // 1. A run, journaled.
  const fake = model();
  const counts = { lookup: 0, send: 0 };
  const store = SqliteJournalStore.open(join(dir, 'journal.sqlite'));
  const runtime = Runtime.build({
    store,
    providers: { openai: { api: 'openai-chat', fetch: fake.fetch } },
    agents: [agent],
    tools: tools(counts),
    clock: steppingClock(),
    ids: sequentialIds('run'),
    owner: 'demo-runtime',
  });
  const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
  const records = await store.read(outcome.runId);
  console.log(
    `run ${outcome.runId}: ${outcome.status}: "${outcome.output}" (${fake.calls().length} model calls, ${counts.lookup + counts.send} tool runs, ${records.length} journal records)`,
  );

  // 2. Strict replay: every effect read back.
  const callsBefore = fake.calls().length;
  const runsBefore = counts.lookup + counts.send;
  const replayed = await runtime.replay(outcome.runId, 'strict');
  assertReplayWasNotBackstopped(replayed, 'demo replay');
  const same = replayed.output === outcome.output;
  console.log(
    `strict replay: ${same ? 'identical output' : 'DIFFERENT OUTPUT'}, ${fake.calls().length - callsBefore} model calls, ${counts.lookup + counts.send - runsBefore} tool runs, ${replayed.backstopHits} backstop hits`,
  );
  await store.close();

  // 3. The crash harness: the process dies right after the message went out.
  const harnessCounts = { lookup: 0, send: 0 };
  const result = await runScenario(
    { tools: tools(harnessCounts), agent, model: model(), goal: 'Where is parcel P-1?' },
    crashAt('AfterToolEffect', { tool: 'send_message' }),
  );
  const story = result.events.filter((event) => / (paused|resumed)|^crash|^operator/.test(event));
  console.log(`crash harness: ${story.join(' → ')}`);
  console.log(
    `send_message ran ${harnessCounts.send} times (once more, under the approval); invariants: ${result.violations.length === 0 ? 'all 7 hold' : result.violations.join('; ')}`,
  );
  if (!same || result.violations.length > 0 || replayed.backstopHits > 0) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
