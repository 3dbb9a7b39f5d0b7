import { diffJson, excerpt, ModeltapeError } from '../core/internal.js';
import type { ValidateFunction } from '../schema/internal.js';
import { DEFAULT_MAX_STEPS, DEFAULT_MAX_TOKENS, type Agent } from './agent.js';
import { checkedDecision } from './check-decision.js';
import { EffectJournal, isStoreFailure } from './effect-journal.js';
import { LeaseLostError, ModelCallError, NondeterminismError, RecordedFailure } from './errors.js';
import { SimulatedCrash } from './faulty.js';
import type { Clock, IdSource } from './ids.js';
import {
  effectKey,
  TERMINAL_STATUSES,
  type ApprovalRecord,
  type EffectKind,
  type JournalStore,
  type Json,
  type RunRecord,
  type RunStatus,
  type StoredRecord,
} from './journal-store.js';
import { callModel, type ModelAnswer, type ProviderConnection, type Turn } from './model-providers.js';
import type { Policy, PolicyDecision, PolicyRequest, RunView } from './policy.js';
import { recordedEffect, ReplayCursor } from './replay-cursor.js';
import { RunLease } from './run-lease.js';
import type { EffectSummary, ReplayMode, RunOutcome } from './run-outcome.js';
import { runTool } from './run-tool.js';
import type { PointDetail, RuntimePoint } from './runtime-points.js';
import type { Tool, ToolBox, ToolContext } from './tool-box.js';

/** The run was cancelled through its signal (or its journal ends where a cancellation stopped it). */
class Cancelled extends Error {}

/** The run cannot go on: it ends `failed` with this code and message. */
class RunFailed extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** The run stops here until an operator decides. */
class Pause extends Error {
  readonly approval: ApprovalRecord;
  constructor(approval: ApprovalRecord) {
    super(`waiting for approval ${approval.approvalId}`);
    this.approval = approval;
  }
}

/** Where effects are keyed: a step's top level, or under one attempt of a tool call (or its reconcile). */
interface Scope {
  prefix: string | undefined;
  ordinal: number;
  /** Once its attempt has settled, a context may journal nothing more. */
  closed: boolean;
}

/** What the runtime gives one invocation: its store, its run, its mode and the runtime's settings. */
export interface ExecutionSetup {
  signal: AbortSignal | undefined;
  store: JournalStore;
  /** The runtime's lease-holder name. */
  owner: string;
  tools: ToolBox;
  run: RunRecord;
  mode: 'run' | ReplayMode;
  /** The journal a strict replay reads back; undefined for a new run (a resume loads it under the lease). */
  records: StoredRecord[] | undefined;
  readBack: boolean;
  onPoint: ((point: RuntimePoint, detail: PointDetail) => void | Promise<void>) | undefined;
  retryBudget: number;
  /** Goes into every record id: `<owner>#<invocation>`. */
  writer: string;
  clock: Clock;
  ids: IdSource;
  policy: Policy;
  providers: Record<string, ProviderConnection>;
  outputs: Map<string, ValidateFunction>;
  ttlMs: number;
  heartbeatMs: number;
}

/**
 * One invocation of a run (a new run, a strict replay or a resume): the agent loop, step after
 * step, each effect read back through its {@link ReplayCursor} or performed and journaled through
 * its {@link EffectJournal}, under its {@link RunLease}.
 */
export class Execution {
  /** This invocation's writes to the store. */
  readonly journal: EffectJournal;
  readonly #lease: RunLease;
  readonly #setup: ExecutionSetup;
  readonly #store: JournalStore;
  readonly #runId: string;
  #cursor: ReplayCursor | undefined;
  readonly #effects: EffectSummary[] = [];
  #step = 0;
  #top: Scope = { prefix: undefined, ordinal: 0, closed: false };
  /** This invocation drives the run (or just created it): a store error that stops it marks it `interrupted`. */
  #claimed = false;
  /** The status the run ended this invocation with is stored: nothing may overwrite it. */
  #statusWritten = false;
  #retriesUsed = 0;
  readonly #attempts = new Map<string, number>();

  constructor(setup: ExecutionSetup) {
    const { store, run, writer, clock, owner, ttlMs, heartbeatMs } = setup;
    this.#setup = setup;
    this.#store = store;
    this.#runId = run.runId;
    this.#cursor = setup.records === undefined ? undefined : new ReplayCursor(setup.records);
    this.journal = new EffectJournal({ store, runId: run.runId, writer, clock, readOnly: setup.mode === 'strict' && setup.readBack });
    this.#lease = new RunLease({ store, journal: this.journal, runId: run.runId, owner, clock, ttlMs, heartbeatMs });
  }

  get #strict(): boolean {
    return this.#setup.mode === 'strict';
  }

  /**
   * Runs the invocation; whatever happens (but a simulated crash), stops the heartbeat and releases
   * the lease. A store error that stops a run it drives marks the run `interrupted` first.
   */
  async guarded(body: () => Promise<RunOutcome>): Promise<RunOutcome> {
    try {
      await this.journal.countBackstopHits(this.#setup.mode === 'run');
      return await body();
    } catch (error) {
      if (error instanceof SimulatedCrash) this.#lease.markCrashed();
      else if (isStoreFailure(error)) {
        await this.#markInterrupted(error as ModeltapeError);
        // The caller of run() never saw the run's id: the error carries it, to resume by.
        (error as { runId?: string }).runId ??= this.#runId;
      }
      throw error;
    } finally {
      // A crashed process releases nothing: its lease is left to expire.
      await this.#lease.release();
    }
  }

  /** From here on the run is this invocation's to drive (a new run, once created). */
  claim(): void {
    if (!this.#strict) this.#claimed = true;
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
    if (!this.#claimed || this.#statusWritten || this.#lease.lost || this.#lease.crashed) return;
    const { owner, clock } = this.#setup;
    try {
      const lease = await this.#store.getLease(this.#runId);
      if (lease === undefined ? this.#lease.held : lease.owner !== owner) return;
      // The final status may have been stored while its writer was told it failed.
      const stored = await this.#store.getRun(this.#runId);
      if (stored === undefined || TERMINAL_STATUSES.includes(stored.status)) return;
      const result: Json = { code: error.code, message: error.message };
      await this.journal.write('the interrupted status', () => this.#store.updateRun(this.#runId, { status: 'interrupted', result, updatedAt: clock() }));
    } catch (failure) {
      // A crash while writing it is still a crash; any other failure leaves the run as it was.
      if (failure instanceof SimulatedCrash) {
        this.#lease.markCrashed();
        throw failure;
      }
    }
  }

  /** Takes the run's lease (or throws {@link RunLeasedError}) and keeps it alive with a heartbeat. */
  lease(): Promise<void> {
    return this.#lease.acquire();
  }

  /** Tells the onPoint hook where the loop is. */
  async point(point: RuntimePoint, detail: { key?: string; tool?: string; live: boolean }): Promise<void> {
    await this.#setup.onPoint?.(point, { runId: this.#runId, step: this.#step, owner: this.#setup.owner, ...detail });
  }

  /** Reads back from `records` (a resume loads them once it holds the lease). */
  load(run: RunRecord, records: readonly StoredRecord[]): void {
    this.#setup.run = run;
    this.#cursor = new ReplayCursor(records);
  }

  /** The outcome of a finished run as the store holds it (nothing is driven). */
  async stored(run: RunRecord = this.#setup.run): Promise<RunOutcome> {
    const failed = run.status === 'failed' || run.status === 'cancelled';
    return {
      runId: run.runId,
      agent: run.agent,
      mode: this.#setup.mode,
      status: run.status,
      output: run.status === 'completed' ? run.result : null,
      ...(failed ? { error: run.result as { code: string; message: string } } : {}),
      effects: [],
      backstopHits: 0,
      pendingApprovals: [],
      retries: { used: 0, budget: this.#setup.retryBudget },
    };
  }

  #checkCancelled(): void {
    const signal = this.#setup.signal;
    if (signal?.aborted) {
      const reason =
        signal.reason instanceof Error ? signal.reason.message : typeof signal.reason === 'string' ? signal.reason : 'cancelled through its signal';
      throw new Cancelled(reason);
    }
  }

  /** Whether the next effect will be performed rather than read back. */
  get #live(): boolean {
    return this.#cursor === undefined || this.#cursor.done || !this.#setup.readBack;
  }

  /** The agent loop. */
  async drive(agent: Agent): Promise<RunOutcome> {
    const { run, policy, providers, outputs } = this.#setup;
    const connection = providers[agent.provider]!;
    const tools = (agent.tools ?? []).map((name) => this.#setup.tools.get(name)!);
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
        this.#step = step;
        this.#top = { prefix: undefined, ordinal: 0, closed: false };
        await this.point('AfterStepStarted', { live: this.#live });
        this.#checkCancelled();
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
          answer = (await this.#effect(
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
        const decidedLive = this.#effects[this.#effects.length - 1]?.status === 'performed';
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
            : await this.#toolCall(agent, call.name, call.args, call.id, previousCalls, policy);
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
    if (this.#strict && this.#setup.readBack && this.#cursor !== undefined && !this.#cursor.done && status !== 'waiting' && status !== 'cancelled') {
      const next = this.#cursor.peek()!;
      throw new NondeterminismError(this.#runId, 'unreached', recordedEffect(next), undefined);
    }
    if (!this.#strict) {
      const result: Json = status === 'completed' ? output : status === 'failed' || status === 'cancelled' ? (error as unknown as Json) : null;
      await this.journal.write('the run status', () => this.#store.updateRun(this.#runId, { status, result, updatedAt: this.#setup.clock() }));
      this.#statusWritten = true;
    }
    const backstopHits = await this.journal.backstopHits();
    return {
      runId: this.#runId,
      agent: agent.name,
      mode: this.#setup.mode,
      status,
      output,
      ...(error ? { error } : {}),
      effects: this.#effects,
      backstopHits,
      pendingApprovals: pending,
      retries: { used: this.#retriesUsed, budget: this.#setup.retryBudget },
    };
  }

  async #toolCall(
    agent: Agent,
    name: string,
    args: Json,
    callId: string,
    previousCalls: ReadonlyArray<{ tool: string; args: Json }>,
    policy: Policy,
  ): Promise<{ content: string; isError: boolean; ran: boolean }> {
    const acceptance = this.#setup.tools.accept(name, args, agent.tools ?? []);
    if (!acceptance.accepted) return { content: JSON.stringify({ error: `refused: ${acceptance.reason}` }), isError: true, ran: false };
    const tool = acceptance.tool;
    // The evaluation is journaled with the inputs it saw (keyed like the call it decides), so a
    // replay re-evaluates it and sees when the policy now answers otherwise, and recheck() can.
    // The view's earlier calls are the run's earlier tool starts, so the journal holds only their
    // count: each evaluation costs the same however long the run (recheck rebuilds the list).
    const request: PolicyRequest = { tool: name, args, sideEffect: tool.sideEffect };
    const view: RunView = Object.freeze({ runId: this.#runId, agent: agent.name, step: this.#step, previousCalls: Object.freeze(previousCalls.slice()) });
    const inputs: Json = { request: request as unknown as Json, step: this.#step, previousCalls: previousCalls.length };
    let decision: PolicyDecision;
    try {
      // Normalized as the journal stores it (an `undefined` field is no field), and checked: a
      // policy that answers something else fails the run rather than letting the call through.
      decision = (await this.#effect(
        'policy',
        inputs,
        async () => checkedDecision(policy(structuredClone(request), view)),
        undefined,
        false,
      )) as unknown as PolicyDecision;
    } catch (error) {
      if (!(error instanceof RecordedFailure)) throw error;
      throw new RunFailed(
        'policy_failed',
        `The policy failed on ${name}(${JSON.stringify(args)}) at step ${this.#step}: ${error.message}. A policy must answer every request with allow, deny (with a reason) or require_approval (with a kind and a reason).`,
      );
    }
    // A call the policy stops still takes its place: the next call of the step gets the next key.
    const skip = (content: string): { content: string; isError: boolean; ran: boolean } => {
      this.#nextKey('tool');
      return { content, isError: true, ran: false };
    };
    if (decision.outcome === 'deny')
      return skip(JSON.stringify({ error: `denied by policy${decision.rule ? ` (${decision.rule})` : ''}: ${decision.reason}` }));
    if (decision.outcome === 'require_approval') {
      const key = this.#peekKey('tool');
      const approval = await this.#approval(`${this.#runId}/${key}/${decision.kind}`, key, decision.kind, decision.reason, { tool: name, args, callId });
      if (approval.decision === 'pending') {
        // A run cancelled while it waited ends there in a strict replay too.
        if (this.#strict && this.#setup.run.status === 'cancelled')
          throw new Cancelled(((this.#setup.run.result ?? {}) as { message?: string }).message ?? 'cancelled');
        throw new Pause(approval);
      }
      if (approval.decision === 'rejected') return skip(JSON.stringify({ error: `rejected by the operator (${decision.kind}): ${decision.reason}` }));
    }
    await this.point('AfterAllowed', { key: this.#peekKey('tool'), tool: name, live: this.#live });
    try {
      const result = await this.#effect('tool', { tool: name, args, callId }, (context) => this.#runWithRetries(tool, args, context), tool);
      return { content: JSON.stringify(result), isError: false, ran: true };
    } catch (failure) {
      if (!(failure instanceof RecordedFailure)) throw failure;
      return { content: JSON.stringify({ error: failure.message }), isError: true, ran: true };
    }
  }

  /** The approval for an effect, requested now if it was not yet (never written in strict replay). */
  async #approval(approvalId: string, key: string, kind: string, reason: string, request: Json): Promise<ApprovalRecord> {
    const existing = (await this.#store.approvals(this.#runId)).find((approval) => approval.approvalId === approvalId);
    if (existing !== undefined) return existing;
    const approval: ApprovalRecord = {
      approvalId,
      runId: this.#runId,
      effectKey: key,
      kind,
      reason,
      request,
      decision: 'pending',
      createdAt: this.#setup.clock(),
      decidedAt: null,
    };
    if (this.#strict) return approval;
    return this.journal.write(`approval ${approvalId}`, () => this.#store.requestApproval(approval));
  }

  #peekKey(kind: EffectKind, scope: Scope = this.#top): string {
    return scope.prefix === undefined ? effectKey(this.#step, scope.ordinal, kind) : `${scope.prefix}/${scope.ordinal}.${kind}`;
  }

  #nextKey(kind: EffectKind, scope: Scope = this.#top): string {
    const key = this.#peekKey(kind, scope);
    scope.ordinal++;
    return key;
  }

  /**
   * One effect: read back from the journal when replaying, otherwise journaled around `perform`.
   * A failure (now or as recorded) is thrown as {@link RecordedFailure}.
   */
  async #effect(
    kind: EffectKind,
    data: Json,
    perform: (context: ToolContext) => Promise<Json>,
    tool?: Tool,
    advance = true,
    scope: Scope = this.#top,
  ): Promise<Json> {
    const key = advance ? this.#nextKey(kind, scope) : this.#peekKey(kind, scope);
    const requested = { key, kind, data };
    const cursor = this.#cursor;
    // Effects inside a call are live: a call is only asked to run again (after an interruption)
    // under a fresh attempt, whose effects the journal cannot hold yet.
    const topLevel = scope.prefix === undefined;
    if (cursor !== undefined && this.#setup.readBack && !cursor.done && topLevel) {
      const { start, end } = cursor.take();
      const recorded = recordedEffect(start);
      if (start.effectKey !== key)
        throw new NondeterminismError(this.#runId, 'mismatch', recorded, requested, diffJson(recorded, requested, { stopAfter: 10 }));
      const differences = diffJson(start.data, data, { stopAfter: 10 });
      if (differences.length > 0) throw new NondeterminismError(this.#runId, 'mismatch', recorded, requested, differences);
      if (end !== undefined) {
        cursor.skipNested(key);
        if (kind === 'policy' && end.type === 'complete') {
          // A policy is pure: evaluated again on the same inputs, it must answer as it did.
          let now: Json;
          try {
            now = await perform(this.#context(new AbortController().signal, key, { prefix: key, ordinal: 0, closed: true }));
          } catch (error) {
            now = { threw: (error as Error)?.message ?? String(error) };
          }
          const changed = diffJson(end.data, now, { stopAfter: 10 });
          if (changed.length > 0) throw new NondeterminismError(this.#runId, 'mismatch', { key, kind, data: end.data }, { key, kind, data: now }, changed);
        }
        return this.#settled(key, kind, end, 'read_back');
      }
      if (this.#strict) {
        if (this.#setup.run.status === 'cancelled') throw new Cancelled(((this.#setup.run.result ?? {}) as { message?: string }).message ?? 'cancelled');
        throw new ModeltapeError(
          'effect_in_doubt',
          `Strict replay of run ${this.#runId} reached effect ${key} (${kind}), which started and never completed: it is in doubt, and strict replay performs nothing. Resume the run (runtime.resume) to settle it.`,
        );
      }
      return this.#inDoubt(key, kind, data, perform, tool, cursor.attemptsOf(key));
    }
    if (cursor !== undefined && this.#strict && this.#setup.readBack) {
      if (this.#setup.run.status === 'cancelled') throw new Cancelled(((this.#setup.run.result ?? {}) as { message?: string }).message ?? 'cancelled');
      const unfinished = this.#setup.run.status === 'running' || this.#setup.run.status === 'interrupted';
      const hint = unfinished ? ' The run never finished: resume it (runtime.resume) instead of replaying it strictly.' : '';
      const error = new NondeterminismError(this.#runId, 'extra', undefined, requested);
      if (hint) error.message += hint;
      throw error;
    }
    if (this.#lease.lost) throw new LeaseLostError(this.#runId, this.#setup.owner);
    // Only between top-level effects: never inside a tool, between its start and its end.
    if (topLevel) this.#checkCancelled();
    const started = await this.journal.start(key, data);
    if (!started.started) {
      // The backstop held: another start of this effect is in the journal. Answer from it.
      if (started.end !== undefined) return this.#settled(key, kind, started.end, 'backstopped');
      return this.#inDoubt(key, kind, data, perform, tool, started.attempts);
    }
    if (kind === 'tool') await this.point('AfterToolStarted', { key, tool: tool?.name, live: true });
    return this.#perform(key, kind, perform, 'performed', tool);
  }

  #settled(key: string, kind: EffectKind, end: StoredRecord, status: EffectSummary['status']): Json {
    if (end.type === 'fail') {
      this.#effects.push({ key, kind, status: 'failed' });
      throw new RecordedFailure(end.data);
    }
    this.#effects.push({ key, kind, status });
    return end.data;
  }

  /** Performs an effect whose start is journaled, and journals how it ended. */
  async #perform(
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
      result = await perform(this.#context(new AbortController().signal, key, scope));
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
    if (isTool) await this.point('AfterToolEffect', { key, tool: tool?.name, live: true });
    if (failure !== undefined) {
      await this.journal.end(key, 'fail', failure);
      if (isTool) await this.point('AfterToolFinished', { key, tool: tool?.name, live: true });
      const attempts = this.#attempts.get(key);
      this.#effects.push({ key, kind, status: 'failed', ...(attempts !== undefined ? { attempts } : {}) });
      throw new RecordedFailure(failure);
    }
    await this.journal.end(key, 'complete', result);
    if (isTool) await this.point('AfterToolFinished', { key, tool: tool?.name, live: true });
    const attempts = this.#attempts.get(key);
    this.#effects.push({ key, kind, status, ...(attempts !== undefined ? { attempts } : {}) });
    return result;
  }

  /** Runs a tool, again after a timeout (or a retryable error) while its retries and the run's budget last. */
  async #runWithRetries(tool: Tool, args: Json, context: ToolContext): Promise<Json> {
    const key = context.operationId.slice(this.#runId.length + 1);
    for (let attempt = 1; ; attempt++) {
      this.#attempts.set(key, attempt);
      try {
        return await runTool(tool, args, { ...context, attempt });
      } catch (error) {
        const retryable = (error as Error)?.name === 'ToolTimeoutError' || (error as { retryable?: unknown })?.retryable === true;
        if (!retryable || attempt > (tool.retries ?? 0) || this.#retriesUsed >= this.#setup.retryBudget) throw error;
        this.#retriesUsed++;
      }
    }
  }

  /**
   * An effect that started and never completed. A model call, a policy evaluation, a clock read or
   * an id is performed again (none changes the world); a tool call, whatever its class, is never
   * blindly run again: its `reconcile` decides, or an operator approves (kind `interrupted_side_effect`).
   */
  async #inDoubt(
    key: string,
    kind: EffectKind,
    data: Json,
    perform: (context: ToolContext) => Promise<Json>,
    tool: Tool | undefined,
    attempts: number,
  ): Promise<Json> {
    const next = attempts + 1;
    if (kind !== 'tool' || tool === undefined) return this.#perform(key, kind, perform, 'performed', tool, next);
    if (tool.reconcile !== undefined) {
      const args = (data as { args: Json }).args;
      // What reconcile does through its context is keyed under the attempt it settles.
      const scope: Scope = { prefix: `${key}@${next}.reconcile`, ordinal: 0, closed: false };
      let verdict: unknown;
      try {
        verdict = await tool.reconcile(args, this.#context(new AbortController().signal, key, scope));
      } catch (error) {
        if (error instanceof SimulatedCrash || error instanceof LeaseLostError || isStoreFailure(error)) throw error;
        verdict = undefined; // a hook that cannot tell leaves it to the operator
      } finally {
        scope.closed = true;
      }
      const answer = verdict as { status?: unknown; result?: unknown } | undefined;
      if (answer?.status === 'applied' && answer.result !== undefined) {
        const result = JSON.parse(JSON.stringify(answer.result)) as Json;
        await this.journal.end(key, 'complete', result);
        this.#effects.push({ key, kind, status: 'reconciled' });
        return result;
      }
      if (answer?.status === 'not_applied') {
        await this.#lease.confirm();
        return this.#perform(key, kind, perform, 'performed', tool, next);
      }
      // Anything else (a throw, no answer, `applied` without a result, an unknown status) is not an
      // answer: the call is not run again on it; an operator decides, as without a hook.
    }
    // One approval lets the call run once more. If that run was interrupted in turn (the approval is
    // consumed and still no end is recorded), it takes a new approval: `<run>/<key>`, then `#2`, ….
    const own = new RegExp(`^${escapeRegExp(`${this.#runId}/${key}`)}(#\\d+)?$`);
    const asked = (await this.#store.approvals(this.#runId)).filter(
      (candidate) => candidate.kind === 'interrupted_side_effect' && own.test(candidate.approvalId),
    );
    const latest = asked.sort((a, b) => attemptOf(a.approvalId) - attemptOf(b.approvalId)).at(-1);
    const attempt = latest === undefined ? 1 : latest.decision === 'consumed' ? attemptOf(latest.approvalId) + 1 : attemptOf(latest.approvalId);
    const approval =
      latest !== undefined && latest.decision !== 'consumed'
        ? latest
        : await this.#approval(
            attempt === 1 ? `${this.#runId}/${key}` : `${this.#runId}/${key}#${attempt}`,
            key,
            'interrupted_side_effect',
            `${tool.name} (${tool.sideEffect}) started and its end was never recorded${attempt > 1 ? `, again, after the run approved on attempt ${attempt - 1}` : ''}: it may have run. Approve to run it once more, reject to report it failed.`,
            data,
          );
    if (approval.decision === 'pending') {
      await this.point('AfterInterrupted', { key, tool: tool.name, live: true });
      throw new Pause(approval);
    }
    if (approval.decision === 'rejected') {
      const failure: Json = { name: 'InterruptedSideEffectRejected', message: `the operator rejected running ${tool.name} again after an interruption` };
      await this.journal.end(key, 'fail', failure);
      this.#effects.push({ key, kind, status: 'failed' });
      throw new RecordedFailure(failure);
    }
    // Approved: consume it first, so a crash during this run cannot reuse it. Only the call that
    // consumed it runs the tool: if the compare-and-set did not report ours (another runtime took
    // the run, or the write's answer was lost), nothing runs, and a later resume asks again.
    if (!this.#strict) {
      await this.#lease.confirm();
      const consumed = await this.journal.write(`the consumption of approval ${approval.approvalId}`, () =>
        this.#store.consumeApproval(approval.approvalId, this.#setup.clock()),
      );
      if (consumed !== true) {
        throw new ModeltapeError(
          'approval_not_ours',
          `Approval ${approval.approvalId} was not consumed by this runtime (another runtime took it, or this runtime's write of it was lost), so ${tool.name} is not run again here. Resume the run: if the call still has no recorded end, it asks for a new approval.`,
        );
      }
    }
    return this.#perform(key, kind, perform, 'performed', tool, next);
  }

  /** A tool's context: its effects go under its own scope, and nothing after the attempt settled. */
  #context(signal: AbortSignal, key: string, scope: Scope): ToolContext {
    const effect = async (kind: 'now' | 'id', produce: () => Json): Promise<Json> => {
      if (scope.closed)
        throw new ModeltapeError(
          'tool_call_closed',
          `The call ${this.#runId}/${key} is over: its context cannot journal ${kind === 'now' ? 'now()' : 'newId()'} any more (await every context call before returning).`,
        );
      return this.#effect(kind, null, async () => produce(), undefined, true, scope);
    };
    return {
      runId: this.#runId,
      step: this.#step,
      operationId: `${this.#runId}/${key}`,
      attempt: 1,
      signal,
      now: async () => (await effect('now', () => this.#setup.clock())) as number,
      newId: async () => (await effect('id', () => this.#setup.ids())) as string,
    };
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** 1 for `<run>/<key>`, n for `<run>/<key>#n`. */
function attemptOf(approvalId: string): number {
  const match = /#(\d+)$/.exec(approvalId);
  return match ? Number(match[1]) : 1;
}

function parseJson(text: string | null): { ok: true; value: Json } | { ok: false } {
  if (text === null) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch {
    return { ok: false };
  }
}
