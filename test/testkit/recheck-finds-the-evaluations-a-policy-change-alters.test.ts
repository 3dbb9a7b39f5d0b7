import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import type { Policy } from 'modeltape/runtime';
import { recheck, recheckDiffers, RecheckError } from 'modeltape/testkit';
import { parcelRuntime } from '../support/parcel-agent.js';

const recorded: Policy = (request) => (request.tool === 'send_message' ? { outcome: 'allow', rule: 'messages-ok' } : { outcome: 'allow' });

async function recordedRun() {
  const parcel = parcelRuntime({ policy: recorded });
  const outcome = await parcel.runtime.run('parcel-desk', 'Where is parcel P-1?');
  expect(outcome.status).toBe('completed');
  return { store: parcel.store, runId: outcome.runId };
}

describe('recheck', () => {
  test('passes when the policy decides every journaled evaluation as it did, and returns them', async () => {
    const { store, runId } = await recordedRun();
    const evaluations = await recheck(store, runId, recorded);
    expect(evaluations.map((evaluation) => [evaluation.step, evaluation.tool, evaluation.key])).toEqual([
      [0, 'lookup_parcel', '0.1.policy'],
      [1, 'send_message', '1.1.policy'],
    ]);
  });

  test('fails on an evaluation a changed policy decides otherwise, naming the step, the tool and what changed', async () => {
    const { store, runId } = await recordedRun();
    const stricter: Policy = (request, view) =>
      request.sideEffect === 'remote_mutation'
        ? { outcome: 'require_approval', kind: 'review', rule: 'review-messages', reason: 'messages are reviewed' }
        : recorded(request, view);
    const error = await recheck(store, runId, stricter).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RecheckError);
    expect((error as Error).message).toContain(
      'The policy now decides 1 of 2 evaluations of run run-1 otherwise:\n  step 1, send_message (1.1.policy):\n    at .outcome: journaled "allow" now "require_approval"',
    );
    // The policy sees the view it saw then: how many calls came before.
    const counting: Policy = (request, view) =>
      view.previousCalls.length >= 1 ? { outcome: 'deny', rule: 'one-call', reason: 'one call per run' } : recorded(request, view);
    await expect(recheckDiffers(store, runId, counting, [1])).resolves.toHaveLength(2);
  });

  test('recheckDiffers fails unless exactly the given steps differ', async () => {
    const { store, runId } = await recordedRun();
    const noLookups: Policy = (request, view) =>
      request.tool === 'lookup_parcel' ? { outcome: 'deny', rule: 'no-lookups', reason: 'lookups are off' } : recorded(request, view);
    await expect(recheckDiffers(store, runId, noLookups, [0])).resolves.toHaveLength(2);
    await expect(recheckDiffers(store, runId, noLookups, [1])).rejects.toThrow(
      "The policy's changes to run run-1 are not the ones expected (steps 1):\n  expected to differ, and did not: step 1\n  differs, and was not expected to: step 0, lookup_parcel (0.1.policy):",
    );
    await expect(recheckDiffers(store, runId, recorded, [])).resolves.toHaveLength(2);
  });

  test('both fail when the run journaled no evaluation', async () => {
    const parcel = parcelRuntime({ fake: new FakeProvider().willSay('No tools needed.') });
    const outcome = await parcel.runtime.run('parcel-desk', 'Hello');
    await expect(recheck(parcel.store, outcome.runId, recorded)).rejects.toThrow('Run run-1 journaled no policy evaluation, so nothing was re-checked.');
    await expect(recheckDiffers(parcel.store, outcome.runId, recorded, [])).rejects.toThrow('nothing was re-checked');
  });
});
