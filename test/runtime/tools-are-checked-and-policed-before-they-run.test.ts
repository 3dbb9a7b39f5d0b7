import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { assertReplayWasNotBackstopped, type Policy } from 'modeltape/runtime';
import { parcelRuntime } from '../support/parcel-agent.js';

/** What the model was told about its tool calls, turn by turn. */
function toolResults(fake: FakeProvider): Array<Array<{ name: string | undefined; result: string; isError: boolean }>> {
  return fake.asked().map((turn) => turn.exchanges.map(({ name, result, isError }) => ({ name, result, isError })));
}

describe('tool calls', () => {
  test('with arguments that do not match the schema are refused before the tool or the policy sees them, and the model is told why', async () => {
    const asked: string[] = [];
    const fake = new FakeProvider()
      .willCallTool('lookup_parcel', { parcel: 42 }, { id: 'call_bad' })
      .endTurn()
      .willCallTool('lookup_parcels', { parcel: 'P-1' }, { id: 'call_unknown' })
      .endTurn()
      .willSay('I could not look it up.')
      // A model without strict tools can name a tool that was not offered, or send a number for a string.
      .withoutConstrainedDecoding();
    const { runtime, runs } = parcelRuntime({ fake, policy: (request) => (asked.push(request.tool), { outcome: 'allow' }) });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel 42?');
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('completed');
    expect(runs.lookup).toEqual([]);
    expect(asked).toEqual([]);
    expect(toolResults(fake)).toEqual([
      [],
      [{ name: 'lookup_parcel', result: '{"error":"refused: invalid arguments for lookup_parcel: .parcel must be string"}', isError: false }],
      [
        {
          name: 'lookup_parcels',
          result: '{"error":"refused: unknown tool \\"lookup_parcels\\"; did you mean \\"lookup_parcel\\"? (available: lookup_parcel, send_message)"}',
          isError: false,
        },
      ],
    ]);
    // A refusal is decided again identically on replay: nothing about it is journaled.
    expect(outcome.effects.map((effect) => effect.key)).toEqual(['0.0.model', '1.0.model', '2.0.model']);
    expect((await runtime.replay(outcome.runId, 'strict')).output).toBe('I could not look it up.');
  });

  test('that outlive their timeout fail, the model is told, and replay reads the failure back', async () => {
    const fake = new FakeProvider()
      .willCallTool('lookup_parcel', { parcel: 'P-1' }, { id: 'call_slow' })
      .endTurn()
      .willSay('The tracking service is slow today.');
    let aborted = false;
    const { runtime, store } = parcelRuntime({
      fake,
      toolOverrides: {
        lookup: {
          timeoutMs: 20,
          run: (_args, context) =>
            new Promise(() => {
              context.signal.addEventListener('abort', () => (aborted = true));
            }),
        },
      },
    });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(aborted).toBe(true);
    expect(outcome.effects.map((effect) => `${effect.key} ${effect.status}`)).toEqual([
      '0.0.model performed',
      '0.1.policy performed',
      '0.1.tool failed',
      '1.0.model performed',
    ]);
    expect(toolResults(fake)[1]).toEqual([
      { name: 'lookup_parcel', result: '{"error":"ToolTimeoutError: Tool lookup_parcel did not finish within 20 ms (its timeoutMs)."}', isError: false },
    ]);
    const failure = (await store.read(outcome.runId)).find((record) => record.type === 'fail');
    expect(failure).toMatchObject({
      effectKey: '0.1.tool',
      data: { name: 'ToolTimeoutError', message: 'Tool lookup_parcel did not finish within 20 ms (its timeoutMs).' },
    });
    const replayed = await runtime.replay(outcome.runId, 'strict');
    expect(replayed.effects.map((effect) => `${effect.key} ${effect.status}`)).toEqual([
      '0.0.model read_back',
      '0.1.policy read_back',
      '0.1.tool failed',
      '1.0.model read_back',
    ]);
    expect(replayed.output).toBe(outcome.output);
  });

  test('a policy denial reaches the model and the tool never runs', async () => {
    const fake = new FakeProvider()
      .willCallTool('send_message', { to: 'customer', text: 'hi' }, { id: 'call_send' })
      .endTurn()
      .willSay('I may not send messages.');
    const policy: Policy = (request, view) =>
      request.sideEffect === 'remote_mutation' ? { outcome: 'deny', reason: `no remote mutations in ${view.agent}` } : { outcome: 'allow' };
    const { runtime, runs } = parcelRuntime({ fake, policy });
    const outcome = await runtime.run('parcel-desk', 'Tell the customer hi.');
    expect(runs.send).toEqual([]);
    expect(toolResults(fake)[1]).toEqual([
      { name: 'send_message', result: '{"error":"denied by policy: no remote mutations in parcel-desk"}', isError: false },
    ]);
    expect(outcome.output).toBe('I may not send messages.');
  });

  test('that need approval wait for it; approved, the call runs once; a strict replay afterwards asks nothing', async () => {
    const fake = new FakeProvider()
      .willCallTool('send_message', { to: 'customer', text: 'Your refund is on its way.' }, { id: 'call_send' })
      .endTurn()
      .willSay('Done: the customer was told.');
    const seen: Array<{ step: number; previous: number }> = [];
    const policy: Policy = (request, view) => {
      seen.push({ step: view.step, previous: view.previousCalls.length });
      return request.tool === 'send_message'
        ? { outcome: 'require_approval', kind: 'customer_contact', reason: 'messages to customers are reviewed' }
        : { outcome: 'allow' };
    };
    const { runtime, runs, store } = parcelRuntime({ fake, policy });
    const waiting = await runtime.run('parcel-desk', 'Tell the customer about the refund.');
    expect(waiting.status).toBe('waiting');
    expect(waiting.pendingApprovals).toMatchObject([
      {
        approvalId: 'run-1/0.1.tool/customer_contact',
        kind: 'customer_contact',
        reason: 'messages to customers are reviewed',
        decision: 'pending',
        request: { tool: 'send_message' },
      },
    ]);
    expect(runs.send).toEqual([]);
    expect(fake.calls()).toHaveLength(1);
    expect(await store.getLease('run-1')).toBeUndefined();
    expect((await store.getRun('run-1'))?.status).toBe('waiting');

    // Resumed before a decision, it waits again without asking the model.
    expect((await runtime.resume('run-1')).status).toBe('waiting');
    expect(fake.calls()).toHaveLength(1);

    await runtime.approve('run-1/0.1.tool/customer_contact');
    await expect(runtime.reject('run-1/0.1.tool/customer_contact')).rejects.toThrow(
      'Approval run-1/0.1.tool/customer_contact was already approved; a decision is final.',
    );
    const done = await runtime.resume('run-1');
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Done: the customer was told.');
    expect(runs.send).toHaveLength(1);
    expect(done.effects.map((effect) => `${effect.key} ${effect.status}`)).toEqual([
      '0.0.model read_back',
      '0.1.policy read_back',
      '0.1.tool/0.id performed',
      '0.1.tool/1.now performed',
      '0.1.tool performed',
      '1.0.model performed',
    ]);
    expect(seen.every(({ step }) => step === 0)).toBe(true);

    const replayed = await runtime.replay('run-1', 'strict');
    expect(replayed.output).toBe(done.output);
    expect(runs.send).toHaveLength(1);
    expect(fake.calls()).toHaveLength(2);
    assertReplayWasNotBackstopped(replayed, 'after approval');
  });

  test('that an operator rejects are reported to the model as rejected', async () => {
    const fake = new FakeProvider()
      .willCallTool('send_message', { to: 'customer', text: 'x' }, { id: 'call_send' })
      .endTurn()
      .willSay('The message was not approved.');
    const { runtime, runs } = parcelRuntime({ fake, policy: () => ({ outcome: 'require_approval', kind: 'customer_contact', reason: 'reviewed' }) });
    const waiting = await runtime.run('parcel-desk', 'Tell the customer.');
    await runtime.reject(waiting.pendingApprovals[0]!.approvalId);
    const done = await runtime.resume(waiting.runId);
    expect(done.output).toBe('The message was not approved.');
    expect(runs.send).toEqual([]);
    expect(toolResults(fake)[1]).toEqual([
      { name: 'send_message', result: '{"error":"rejected by the operator (customer_contact): reviewed"}', isError: false },
    ]);
  });
});
