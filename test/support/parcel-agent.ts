// A small agent for runtime tests: it looks a parcel up (a read) and tells the customer (a remote
// mutation), with counters that show how often each tool really ran.
import { FakeProvider } from 'modeltape/fake-provider';
import {
  Runtime,
  SqliteJournalStore,
  sequentialIds,
  steppingClock,
  type Agent,
  type JournalStore,
  type Json,
  type RuntimeOptions,
  type Tool,
} from 'modeltape/runtime';

export interface ToolRuns {
  lookup: Json[];
  send: Json[];
}

export function parcelTools(runs: ToolRuns, overrides: Partial<Record<'lookup' | 'send', Partial<Tool>>> = {}): Tool[] {
  return [
    {
      name: 'lookup_parcel',
      description: 'Finds where a parcel is.',
      parameters: { type: 'object', properties: { parcel: { type: 'string', pattern: '^P-\\d+$' } }, required: ['parcel'], additionalProperties: false },
      sideEffect: 'read',
      run: async (args) => {
        runs.lookup.push(args);
        return { parcel: (args as { parcel: string }).parcel, city: 'Lyon' };
      },
      ...overrides.lookup,
    },
    {
      name: 'send_message',
      description: 'Sends a message to the customer.',
      parameters: { type: 'object', properties: { to: { type: 'string' }, text: { type: 'string' } }, required: ['to', 'text'], additionalProperties: false },
      sideEffect: 'remote_mutation',
      run: async (args, context) => {
        runs.send.push(args);
        return { sent: true, messageId: await context.newId(), at: await context.now() };
      },
      ...overrides.send,
    },
  ];
}

export const parcelAgent: Agent = {
  name: 'parcel-desk',
  provider: 'openai',
  model: 'gpt-4o',
  system: 'You answer questions about parcels. Look the parcel up, then tell the customer.',
  tools: ['lookup_parcel', 'send_message'],
};

/** Scripts the three turns of the parcel conversation. */
export function scriptParcel(fake: FakeProvider): FakeProvider {
  return fake
    .willCallTool('lookup_parcel', { parcel: 'P-1' }, { id: 'call_lookup' })
    .endTurn()
    .willCallTool('send_message', { to: 'customer', text: 'Your parcel P-1 is in Lyon.' }, { id: 'call_send' })
    .endTurn()
    .willSay('Parcel P-1 is in Lyon; I told the customer.');
}

export interface ParcelRuntime {
  runtime: Runtime;
  fake: FakeProvider;
  runs: ToolRuns;
  store: JournalStore;
}

/** A runtime on `store` (a fresh in-memory one by default) whose provider is `fake.fetch`. */
export function parcelRuntime(
  options: Partial<RuntimeOptions> & { fake?: FakeProvider; runs?: ToolRuns; toolOverrides?: Parameters<typeof parcelTools>[1] } = {},
): ParcelRuntime {
  const fake = options.fake ?? scriptParcel(new FakeProvider());
  const runs = options.runs ?? { lookup: [], send: [] };
  const store = options.store ?? SqliteJournalStore.memory();
  const { fake: _fake, runs: _runs, toolOverrides, ...rest } = options;
  const runtime = Runtime.build({
    providers: { openai: { api: 'openai-chat', fetch: fake.fetch, apiKey: 'fake-key-for-tests' } },
    agents: [parcelAgent],
    tools: parcelTools(runs, toolOverrides),
    clock: steppingClock(),
    ids: sequentialIds('run'),
    owner: 'runtime-a',
    ...rest,
    store,
  });
  return { runtime, fake, runs, store };
}

/**
 * The parcel conversation as rules that answer by what the model was told, like a model that
 * answers the same question the same way: asked again after a crash, it gives the same answer.
 */
export function parcelRules(fake: FakeProvider): FakeProvider {
  const last = (turn: { exchanges: Array<{ name: string | undefined }> }): string | undefined => turn.exchanges.at(-1)?.name;
  fake.when((turn) => turn.exchanges.length === 0, { always: true }).willCallTool('lookup_parcel', { parcel: 'P-1' }, { id: 'call_lookup' });
  fake
    .when((turn) => last(turn) === 'lookup_parcel', { always: true })
    .willCallTool('send_message', { to: 'customer', text: 'Your parcel P-1 is in Lyon.' }, { id: 'call_send' });
  fake.when((turn) => last(turn) === 'send_message', { always: true }).willSay('Parcel P-1 is in Lyon; I told the customer.');
  return fake;
}
