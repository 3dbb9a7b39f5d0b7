import { excerpt, type ModeltapeError } from '../core/internal.js';
import { DEFAULT_MAX_STEPS, DEFAULT_MAX_TOKENS, type Agent } from './agent.js';
import { isStoreFailure, type EffectJournal } from './effect-journal.js';
import { NondeterminismError, RecordedFailure } from './errors.js';
import { ExecutionState, type ExecutionSetup } from './execution-state.js';
import { SimulatedCrash } from './faulty.js';
import { effectKey, TERMINAL_STATUSES, type ApprovalRecord, type Json, type RunRecord, type RunStatus, type StoredRecord } from './journal-store.js';
import { callModel, type ModelAnswer, type Turn } from './model-providers.js';
import { performEffect } from './perform-effect.js';
import { recordedEffect, ReplayCursor } from './replay-cursor.js';
import type { RunOutcome } from './run-outcome.js';
import { Cancelled, Pause, RunFailed } from './run-stops.js';
import type { RuntimePoint } from './runtime-points.js';
import { toolCall } from './tool-call.js';

/**
 * One invocation of a run (a new run, a strict replay or a resume): the agent loop, step after
 * step, each effect read back through its {@link ReplayCursor} or performed and journaled through
 * its {@link EffectJournal}, under the run's lease. What the steps share is one
 * {@link ExecutionState}; an effect is {@link performEffect}, a tool call {@link toolCall}.
 */
export class Execution {
  /** This invocation's writes to the store. */
  readonly journal: EffectJournal;
  readonly #state: ExecutionState;
  /** This invocation drives the run (or just created it): a store error that stops it marks it `interrupted`. */
  #claimed = false;
  /** The status the run ended this invocation with is stored: nothing may overwrite it. */
  #statusWritten = false;

  constructor(setup: ExecutionSetup) {
    this.#state = new ExecutionState(setup);
    this.journal = this.#state.journal;
  }

  /**
   * Runs the invocation; whatever happens (but a simulated crash), stops the heartbeat and releases
   * the lease. A store error that stops a run it drives marks the run `interrupted` first.
   */
  async guarded(body: () => Promise<RunOutcome>): Promise<RunOutcome> {
    const { setup, lease, runId } = this.#state;
    try {
      await this.journal.countBackstopHits(setup.mode === 'run');
      return await body();
    } catch (error) {
      if (error instanceof SimulatedCrash) lease.markCrashed();
      else if (isStoreFailure(error)) {
        await this.#markInterrupted(error as ModeltapeError);
        // The caller of run() never saw the run's id: the error carries it, to resume by.
        (error as { runId?: string }).runId ??= runId;
      }
      throw error;
    } finally {
      // A crashed process releases nothing: its lease is left to expire.
      await lease.release();
    }
  }

  /** From here on the run is this invocation's to drive (a new run, once created). */
  claim(): void {
    if (!this.#state.strict) this.#claimed = true;
  }

  /**
   * Best effort, once a store error stopped a run this invocation drives: records the run as
   * `interrupted` with the error's code and message (masked when the error was made), so that it
   * does not read as live. Only while the store shows the lease as this runtime's (or, on a run it
   * just created and could not lease, as nobody's), and never over the status the run ended with
   * (a terminal one stored, or this invocation's own).
   * When this write fails too (the disk is still full), the run stays `running` and its lease is
   * released, or expires; the caller gets the store error either way.
   */
  async #markInterrupted(error: ModeltapeError): Promise<void> {
    const { setup, store, runId, lease: runLease } = this.#state;
    if (!this.#claimed || this.#statusWritten || runLease.lost || runLease.crashed) return;
    const { owner, clock } = setup;
    try {
      const lease = await store.getLease(runId);
      if (lease === undefined ? runLease.held : lease.owner !== owner) return;
      // The final status may have been stored while its writer was told it failed.
      const stored = await store.getRun(runId);
      if (stored === undefined || TERMINAL_STATUSES.includes(stored.status)) return;
      const result: Json = { code: error.code, message: error.message };
      await this.journal.write('the interrupted status', () => store.updateRun(runId, { status: 'interrupted', result, updatedAt: clock() }));
    } catch (failure) {
      // A crash while writing it is still a crash; any other failure leaves the run as it was.
      if (failure instanceof SimulatedCrash) {
        runLease.markCrashed();
        throw failure;
      }
    }
  }

  /** Takes the run's lease (or throws {@link RunLeasedError}) and keeps it alive with a heartbeat. */
  lease(): Promise<void> {
    return this.#state.lease.acquire();
  }

  /** Tells the onPoint hook where the loop is. */
  point(point: RuntimePoint, detail: { key?: string; tool?: string; live: boolean }): Promise<void> {
    return this.#state.point(point, detail);
  }

  /** Reads back from `records` (a resume loads them once it holds the lease). */
  load(run: RunRecord, records: readonly StoredRecord[]): void {
    this.#state.setup.run = run;
    this.#state.cursor = new ReplayCursor(records);
  }

  /** The outcome of a finished run as the store holds it (nothing is driven). */
  async stored(run: RunRecord = this.#state.setup.run): Promise<RunOutcome> {
    const failed = run.status === 'failed' || run.status === 'cancelled';
    return {
      runId: run.runId,
      agent: run.agent,
      mode: this.#state.setup.mode,
      status: run.status,
      output: run.status === 'completed' ? run.result : null,
      ...(failed ? { error: run.result as { code: string; message: string } } : {}),
      effects: [],
      backstopHits: 0,
      pendingApprovals: [],
      retries: { used: 0, budget: this.#state.setup.retryBudget },
    };
  }

  /** The agent loop. */
  async drive(agent: Agent): Promise<RunOutcome> {
    const state = this.#state;
    const { run, policy, providers, outputs } = state.setup;
    const connection = providers[agent.provider]!;
    const tools = (agent.tools ?? []).map((name) => state.setup.tools.get(name)!);
    const turns: Turn[] = [{ role: 'user', content: typeof run.input === 'string' ? run.input : JSON.stringify(run.input) }];
    const previousCalls: Array<{ tool: string; args: Json }> = [];
    let sent = 0;
    let status: RunStatus = 'running';
    let output: Json = null;
    let error: { code: string; message: string } | undefined;
    let pending: ApprovalRecord[] = [];
    this.claim();
    try {
      const maxSteps = agent.maxSteps ?? DEFAULT_MAX_STEPS;
      for (let step = 0; ; step++) {
        if (step >= maxSteps) {
          status = 'failed';
          error = { code: 'max_steps', message: `Agent "${agent.name}" did not answer within ${maxSteps} steps (maxSteps).` };
          break;
        }
        state.step = step;
        state.top = { prefix: undefined, ordinal: 0, closed: false };
        await this.point('AfterStepStarted', { live: state.live });
        state.checkCancelled();
        // A model effect's arguments are what this request adds to the conversation (the first
        // also holds the system prompt, tools and output schema), so each is journaled and
        // compared once, however long the run.
        const data: Json = {
          provider: agent.provider,
          model: agent.model,
          ...(step === 0
            ? {
                system: agent.system,
                tools: tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })) as unknown as Json,
                output: (agent.output ?? null) as Json,
              }
            : {}),
          turns: turns.slice(sent) as unknown as Json,
        };
        let answer: ModelAnswer;
        try {
          answer = (await performEffect(
            state,
            'model',
            data,
            async () =>
              // `turns` as they stand: nothing is added to them until this effect has settled, and a
              // replay that reads the answer back never renders the request at all.
              (await callModel(agent.provider, connection, {
                model: agent.model,
                system: agent.system,
                turns,
                tools,
                output: agent.output,
                maxTokens: agent.maxTokens ?? DEFAULT_MAX_TOKENS,
              })) as unknown as Json,
          )) as unknown as ModelAnswer;
        } catch (failure) {
          if (!(failure instanceof RecordedFailure)) throw failure;
          status = 'failed';
          error = { code: 'model_call_failed', message: failure.message };
          break;
        }
        const decidedLive = state.effects[state.effects.length - 1]?.status === 'performed';
        await this.point('AfterDecided', { key: effectKey(step, 0, 'model'), live: decidedLive });
        sent = turns.length;
        turns.push({ role: 'assistant', text: answer.text, toolCalls: answer.toolCalls });
        if (answer.toolCalls.length === 0) {
          const validate = outputs.get(agent.name);
          if (validate === undefined) {
            output = answer.text;
            status = 'completed';
          } else {
            const parsed = parseJson(answer.text);
            if (parsed.ok && validate(parsed.value)) {
              output = parsed.value;
              status = 'completed';
            } else {
              status = 'failed';
              const problems = parsed.ok
                ? (validate.errors ?? []).map((problem) => `${problem.instancePath || '(answer)'} ${problem.message ?? ''}`).join('; ')
                : 'it is not JSON';
              error = {
                code: 'output_schema',
                message: `Agent "${agent.name}" answered with output that does not match its output schema: ${problems}. Answer: ${excerpt(String(answer.text), 200)}`,
              };
            }
          }
          break;
        }
        for (const call of answer.toolCalls) {
          const result = call.argumentsError
            ? { content: JSON.stringify({ error: `refused: invalid arguments for ${call.name}: ${call.argumentsError}` }), isError: true, ran: false }
            : await toolCall(state, agent, { name: call.name, args: call.args, callId: call.id }, previousCalls, policy);
          turns.push({ role: 'tool', callId: call.id, name: call.name, content: result.content, isError: result.isError });
          if (result.ran) previousCalls.push(Object.freeze({ tool: call.name, args: call.args }));
        }
      }
    } catch (caught) {
      if (caught instanceof Pause) {
        status = 'waiting';
        pending = [caught.approval];
      } else if (caught instanceof Cancelled) {
        status = 'cancelled';
        error = { code: 'cancelled', message: caught.message };
      } else if (caught instanceof RunFailed) {
        status = 'failed';
        error = { code: caught.code, message: caught.message };
      } else throw caught;
    }
    if (state.strict && state.setup.readBack && state.cursor !== undefined && !state.cursor.done && status !== 'waiting' && status !== 'cancelled') {
      const next = state.cursor.peek()!;
      throw new NondeterminismError(state.runId, 'unreached', recordedEffect(next), undefined);
    }
    if (!state.strict) {
      const result: Json = status === 'completed' ? output : status === 'failed' || status === 'cancelled' ? (error as unknown as Json) : null;
      await this.journal.write('the run status', () => state.store.updateRun(state.runId, { status, result, updatedAt: state.setup.clock() }));
      this.#statusWritten = true;
    }
    const backstopHits = await this.journal.backstopHits();
    return {
      runId: state.runId,
      agent: agent.name,
      mode: state.setup.mode,
      status,
      output,
      ...(error ? { error } : {}),
      effects: state.effects,
      backstopHits,
      pendingApprovals: pending,
      retries: { used: state.retriesUsed, budget: state.setup.retryBudget },
    };
  }
}

function parseJson(text: string | null): { ok: true; value: Json } | { ok: false } {
  if (text === null) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch {
    return { ok: false };
  }
}
