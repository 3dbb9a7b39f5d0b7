import { diffJson, ModeltapeError } from '../core/internal.js';
import { isStoreFailure } from './effect-journal.js';
import { LeaseLostError, ModelCallError, NondeterminismError, RecordedFailure } from './errors.js';
import type { ExecutionState, Scope } from './execution-state.js';
import { SimulatedCrash } from './faulty.js';
import { settleInDoubt } from './in-doubt.js';
import { effectKey, type EffectKind, type Json, type StoredRecord } from './journal-store.js';
import { recordedEffect } from './replay-cursor.js';
import type { EffectSummary } from './run-outcome.js';
import { Cancelled, Pause, RunFailed } from './run-stops.js';
import type { Tool, ToolContext } from './tool-box.js';

/** How {@link performEffect} keys an effect and what it calls. */
export interface EffectOptions {
  /** The tool a `tool` effect calls. */
  tool?: Tool;
  /**
   * Whether the effect takes its key, so that the next effect gets the next one; `false` uses the
   * key without taking it (a policy evaluation is keyed like the call it decides).
   * @default true
   */
  advance?: boolean;
  /** @default the current step's top level */
  scope?: Scope;
}

/** The key the next effect of `kind` gets in `scope`, without taking it. */
export function peekKey(state: ExecutionState, kind: EffectKind, scope: Scope = state.top): string {
  return scope.prefix === undefined ? effectKey(state.step, scope.ordinal, kind) : `${scope.prefix}/${scope.ordinal}.${kind}`;
}

/** Takes the key the next effect of `kind` gets in `scope`. */
export function nextKey(state: ExecutionState, kind: EffectKind, scope: Scope = state.top): string {
  const key = peekKey(state, kind, scope);
  scope.ordinal++;
  return key;
}

/**
 * One effect: read back from the journal when replaying, otherwise journaled around `perform`.
 * A failure (now or as recorded) is thrown as {@link RecordedFailure}.
 */
export async function performEffect(
  state: ExecutionState,
  kind: EffectKind,
  data: Json,
  perform: (context: ToolContext) => Promise<Json>,
  { tool, advance = true, scope = state.top }: EffectOptions = {},
): Promise<Json> {
  const { setup, runId } = state;
  const key = advance ? nextKey(state, kind, scope) : peekKey(state, kind, scope);
  const requested = { key, kind, data };
  const cursor = state.cursor;
  // Effects inside a call are live: a call is only asked to run again (after an interruption)
  // under a fresh attempt, whose effects the journal cannot hold yet.
  const topLevel = scope.prefix === undefined;
  const inDoubt = (attempts: number): Promise<Json> =>
    settleInDoubt(state, {
      key,
      kind,
      data,
      tool,
      attempts,
      performAgain: (attempt) => performJournaled(state, key, kind, perform, 'performed', tool, attempt),
      contextFor: (reconcileScope) => toolContext(state, new AbortController().signal, key, reconcileScope),
    });
  if (cursor !== undefined && setup.readBack && !cursor.done && topLevel) {
    const { start, end } = cursor.take();
    const recorded = recordedEffect(start);
    if (start.effectKey !== key) throw new NondeterminismError(runId, 'mismatch', recorded, requested, diffJson(recorded, requested, { stopAfter: 10 }));
    const differences = diffJson(start.data, data, { stopAfter: 10 });
    if (differences.length > 0) throw new NondeterminismError(runId, 'mismatch', recorded, requested, differences);
    if (end !== undefined) {
      cursor.skipNested(key);
      if (kind === 'policy' && end.type === 'complete') {
        // A policy is pure: evaluated again on the same inputs, it must answer as it did.
        let now: Json;
        try {
          now = await perform(toolContext(state, new AbortController().signal, key, { prefix: key, ordinal: 0, closed: true }));
        } catch (error) {
          now = { threw: (error as Error)?.message ?? String(error) };
        }
        const changed = diffJson(end.data, now, { stopAfter: 10 });
        if (changed.length > 0) throw new NondeterminismError(runId, 'mismatch', { key, kind, data: end.data }, { key, kind, data: now }, changed);
      }
      return settled(state, key, kind, end, 'read_back');
    }
    if (state.strict) {
      if (setup.run.status === 'cancelled') throw new Cancelled(((setup.run.result ?? {}) as { message?: string }).message ?? 'cancelled');
      throw new ModeltapeError(
        'effect_in_doubt',
        `Strict replay of run ${runId} reached effect ${key} (${kind}), which started and never completed: it is in doubt, and strict replay performs nothing. Resume the run (runtime.resume) to settle it.`,
      );
    }
    return inDoubt(cursor.attemptsOf(key));
  }
  if (cursor !== undefined && state.strict && setup.readBack) {
    if (setup.run.status === 'cancelled') throw new Cancelled(((setup.run.result ?? {}) as { message?: string }).message ?? 'cancelled');
    const unfinished = setup.run.status === 'running' || setup.run.status === 'interrupted';
    const hint = unfinished ? ' The run never finished: resume it (runtime.resume) instead of replaying it strictly.' : '';
    const error = new NondeterminismError(runId, 'extra', undefined, requested);
    if (hint) error.message += hint;
    throw error;
  }
  if (state.lease.lost) throw new LeaseLostError(runId, setup.owner);
  // Only between top-level effects: never inside a tool, between its start and its end.
  if (topLevel) state.checkCancelled();
  const started = await state.journal.start(key, data);
  if (!started.started) {
    // The backstop held: another start of this effect is in the journal. Answer from it.
    if (started.end !== undefined) return settled(state, key, kind, started.end, 'backstopped');
    return inDoubt(started.attempts);
  }
  if (kind === 'tool') await state.point('AfterToolStarted', { key, tool: tool?.name, live: true });
  return performJournaled(state, key, kind, perform, 'performed', tool);
}

function settled(state: ExecutionState, key: string, kind: EffectKind, end: StoredRecord, status: EffectSummary['status']): Json {
  if (end.type === 'fail') {
    state.effects.push({ key, kind, status: 'failed' });
    throw new RecordedFailure(end.data);
  }
  state.effects.push({ key, kind, status });
  return end.data;
}

/** Performs an effect whose start is journaled, and journals how it ended. */
async function performJournaled(
  state: ExecutionState,
  key: string,
  kind: EffectKind,
  perform: (context: ToolContext) => Promise<Json>,
  status: EffectSummary['status'],
  tool?: Tool,
  attempt = 1,
): Promise<Json> {
  // A call's own effects are keyed under its attempt: `<key>/…` the first time, `<key>@2/…` when run again.
  const scope: Scope = { prefix: attempt === 1 ? key : `${key}@${attempt}`, ordinal: 0, closed: false };
  let result: Json;
  let failure: Json | undefined;
  try {
    result = await perform(toolContext(state, new AbortController().signal, key, scope));
  } catch (error) {
    if (
      error instanceof SimulatedCrash ||
      error instanceof Pause ||
      error instanceof Cancelled ||
      error instanceof RunFailed ||
      error instanceof LeaseLostError ||
      error instanceof NondeterminismError ||
      isStoreFailure(error)
    )
      throw error;
    failure = {
      name: (error as Error)?.name ?? 'Error',
      message: (error as Error)?.message ?? String(error),
      ...(error instanceof ModelCallError && error.status !== undefined ? { status: error.status } : {}),
    };
    result = null;
  } finally {
    scope.closed = true;
  }
  const isTool = kind === 'tool';
  if (isTool) await state.point('AfterToolEffect', { key, tool: tool?.name, live: true });
  if (failure !== undefined) {
    await state.journal.end(key, 'fail', failure);
    if (isTool) await state.point('AfterToolFinished', { key, tool: tool?.name, live: true });
    const attempts = state.attempts.get(key);
    state.effects.push({ key, kind, status: 'failed', ...(attempts !== undefined ? { attempts } : {}) });
    throw new RecordedFailure(failure);
  }
  await state.journal.end(key, 'complete', result);
  if (isTool) await state.point('AfterToolFinished', { key, tool: tool?.name, live: true });
  const attempts = state.attempts.get(key);
  state.effects.push({ key, kind, status, ...(attempts !== undefined ? { attempts } : {}) });
  return result;
}

/** A tool's context: its effects go under its own scope, and nothing after the attempt settled. */
function toolContext(state: ExecutionState, signal: AbortSignal, key: string, scope: Scope): ToolContext {
  const { runId, setup } = state;
  const effect = async (kind: 'now' | 'id', produce: () => Json): Promise<Json> => {
    if (scope.closed)
      throw new ModeltapeError(
        'tool_call_closed',
        `The call ${runId}/${key} is over: its context cannot journal ${kind === 'now' ? 'now()' : 'newId()'} any more (await every context call before returning).`,
      );
    return performEffect(state, kind, null, async () => produce(), { advance: true, scope });
  };
  return {
    runId,
    step: state.step,
    operationId: `${runId}/${key}`,
    attempt: 1,
    signal,
    now: async () => (await effect('now', () => setup.clock())) as number,
    newId: async () => (await effect('id', () => setup.ids())) as string,
  };
}
