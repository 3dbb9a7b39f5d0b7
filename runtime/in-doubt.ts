import { ModeltapeError } from '../core/internal.js';
import { isStoreFailure } from './effect-journal.js';
import { LeaseLostError, RecordedFailure } from './errors.js';
import type { ExecutionState, Scope } from './execution-state.js';
import { SimulatedCrash } from './faulty.js';
import type { EffectKind, Json } from './journal-store.js';
import { operatorApproval } from './operator-approval.js';
import { Pause } from './run-stops.js';
import type { Tool, ToolContext } from './tool-box.js';

/** An effect whose start is journaled and whose end is not, with the means to perform it again. */
export interface InDoubtEffect {
  key: string;
  kind: EffectKind;
  data: Json;
  tool: Tool | undefined;
  /** How many times it was started. */
  attempts: number;
  /** Performs it as attempt `attempt` (its start is journaled) and journals how it ended. */
  performAgain(attempt: number): Promise<Json>;
  /** A context for the call whose effects go under `scope`. */
  contextFor(scope: Scope): ToolContext;
}

/**
 * An effect that started and never completed. A model call, a policy evaluation, a clock read or
 * an id is performed again (none changes the world); a tool call, whatever its class, is never
 * blindly run again: its `reconcile` decides, or an operator approves (kind `interrupted_side_effect`).
 */
export async function settleInDoubt(state: ExecutionState, { key, kind, data, tool, attempts, performAgain, contextFor }: InDoubtEffect): Promise<Json> {
  const next = attempts + 1;
  if (kind !== 'tool' || tool === undefined) return performAgain(next);
  if (tool.reconcile !== undefined) {
    const args = (data as { args: Json }).args;
    // What reconcile does through its context is keyed under the attempt it settles.
    const scope: Scope = { prefix: `${key}@${next}.reconcile`, ordinal: 0, closed: false };
    let verdict: unknown;
    try {
      verdict = await tool.reconcile(args, contextFor(scope));
    } catch (error) {
      if (error instanceof SimulatedCrash || error instanceof LeaseLostError || isStoreFailure(error)) throw error;
      verdict = undefined; // a hook that cannot tell leaves it to the operator
    } finally {
      scope.closed = true;
    }
    const answer = verdict as { status?: unknown; result?: unknown } | undefined;
    if (answer?.status === 'applied' && answer.result !== undefined) {
      const result = JSON.parse(JSON.stringify(answer.result)) as Json;
      await state.journal.end(key, 'complete', result);
      state.effects.push({ key, kind, status: 'reconciled' });
      return result;
    }
    if (answer?.status === 'not_applied') {
      await state.lease.confirm();
      return performAgain(next);
    }
    // Anything else (a throw, no answer, `applied` without a result, an unknown status) is not an
    // answer: the call is not run again on it; an operator decides, as without a hook.
  }
  // One approval lets the call run once more. If that run was interrupted in turn (the approval is
  // consumed and still no end is recorded), it takes a new approval: `<run>/<key>`, then `#2`, ….
  const own = new RegExp(`^${escapeRegExp(`${state.runId}/${key}`)}(#\\d+)?$`);
  const asked = (await state.store.approvals(state.runId)).filter(
    (candidate) => candidate.kind === 'interrupted_side_effect' && own.test(candidate.approvalId),
  );
  const latest = asked.sort((a, b) => attemptOf(a.approvalId) - attemptOf(b.approvalId)).at(-1);
  const attempt = latest === undefined ? 1 : latest.decision === 'consumed' ? attemptOf(latest.approvalId) + 1 : attemptOf(latest.approvalId);
  const approval =
    latest !== undefined && latest.decision !== 'consumed'
      ? latest
      : await operatorApproval(state, {
          approvalId: attempt === 1 ? `${state.runId}/${key}` : `${state.runId}/${key}#${attempt}`,
          key,
          kind: 'interrupted_side_effect',
          reason: `${tool.name} (${tool.sideEffect}) started and its end was never recorded${attempt > 1 ? `, again, after the run approved on attempt ${attempt - 1}` : ''}: it may have run. Approve to run it once more, reject to report it failed.`,
          request: data,
        });
  if (approval.decision === 'pending') {
    await state.point('AfterInterrupted', { key, tool: tool.name, live: true });
    throw new Pause(approval);
  }
  if (approval.decision === 'rejected') {
    const failure: Json = { name: 'InterruptedSideEffectRejected', message: `the operator rejected running ${tool.name} again after an interruption` };
    await state.journal.end(key, 'fail', failure);
    state.effects.push({ key, kind, status: 'failed' });
    throw new RecordedFailure(failure);
  }
  // Approved: consume it first, so a crash during this run cannot reuse it. Only the call that
  // consumed it runs the tool: if the compare-and-set did not report ours (another runtime took
  // the run, or the write's answer was lost), nothing runs, and a later resume asks again.
  if (!state.strict) {
    await state.lease.confirm();
    const consumed = await state.journal.write(`the consumption of approval ${approval.approvalId}`, () =>
      state.store.consumeApproval(approval.approvalId, state.setup.clock()),
    );
    if (consumed !== true) {
      throw new ModeltapeError(
        'approval_not_ours',
        `Approval ${approval.approvalId} was not consumed by this runtime (another runtime took it, or this runtime's write of it was lost), so ${tool.name} is not run again here. Resume the run: if the call still has no recorded end, it asks for a new approval.`,
      );
    }
  }
  return performAgain(next);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** 1 for `<run>/<key>`, n for `<run>/<key>#n`. */
function attemptOf(approvalId: string): number {
  const match = /#(\d+)$/.exec(approvalId);
  return match ? Number(match[1]) : 1;
}
