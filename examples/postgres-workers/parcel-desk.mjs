// The agent the workers run: it looks a parcel up (a read) and tells the customer (a remote
// mutation), its model a FakeProvider scripted by rules, so that a turn asked again after a crash
// gets the same answer, as from a deterministic model.
import { appendFileSync } from 'node:fs';
import { FakeProvider } from 'modeltape/fake-provider';

export const agent = {
  name: 'parcel-desk',
  provider: 'openai',
  model: 'gpt-4o',
  system: 'You answer questions about parcels. Look the parcel up, then tell the customer.',
  tools: ['lookup_parcel', 'send_message'],
};

export const ANSWER = 'The parcel is in Lyon; I told the customer.';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The tools, each taking a few milliseconds, so that a worker killed at a random moment is often
 * killed inside one. Every send is written to `effects` (one JSON line, appended) the moment it
 * happens, before the journal hears of it: the outbox the invariants are checked against.
 */
export function tools(worker, effects) {
  return [
    {
      name: 'lookup_parcel',
      description: 'Finds where a parcel is.',
      sideEffect: 'read',
      parameters: { type: 'object', properties: { parcel: { type: 'string' } }, required: ['parcel'], additionalProperties: false },
      run: async ({ parcel }) => (await pause(60), { parcel, city: 'Lyon' }),
    },
    {
      name: 'send_message',
      description: 'Sends a message to the customer.',
      sideEffect: 'remote_mutation',
      parameters: { type: 'object', properties: { to: { type: 'string' }, text: { type: 'string' } }, required: ['to', 'text'], additionalProperties: false },
      run: async (_args, ctx) => {
        await pause(40);
        appendFileSync(effects, `${JSON.stringify({ operationId: ctx.operationId, worker })}\n`);
        await pause(40);
        return { sent: true, operation: ctx.operationId };
      },
    },
  ];
}

export function model() {
  const fake = new FakeProvider();
  const last = (turn) => turn.exchanges.at(-1)?.name;
  fake.when((turn) => turn.exchanges.length === 0, { always: true }).willCallTool('lookup_parcel', { parcel: 'P-1' });
  fake.when((turn) => last(turn) === 'lookup_parcel', { always: true }).willCallTool('send_message', { to: 'customer', text: 'Your parcel is in Lyon.' });
  fake.when((turn) => last(turn) === 'send_message', { always: true }).willSay(ANSWER);
  return fake;
}
