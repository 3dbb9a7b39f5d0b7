import { canonicalJson } from '../recordings/internal.js';
import { ModeltapeError } from '../core/internal.js';
import { compileForeignSchema, createLenientValidator, type ValidateFunction } from '../schema/internal.js';
import type { Agent } from './agent.js';
import { RunLeasedError, RunNotFoundError } from './errors.js';
import { Execution } from './execution.js';
import { systemClock, ulidIds, type Clock, type IdSource } from './ids.js';
import { TERMINAL_STATUSES, type ApprovalRecord, type JournalStore, type Json, type RunRecord, type StoredRecord } from './journal-store.js';
import { checkConnection, type ProviderConnection } from './model-providers.js';
import { allowAll, type Policy } from './policy.js';
import { REPLAY_MODES, type ReplayMode, type RunOutcome } from './run-outcome.js';
import type { PointDetail, RuntimePoint } from './runtime-points.js';
import { ToolBox, type Tool } from './tool-box.js';

/** What {@link Runtime.build} is given: the store, the providers, and how the runtime behaves. */
export interface RuntimeOptions {
  store: JournalStore;
  /** Providers by name, each reached through a `fetch` seam. */
  providers: Record<string, ProviderConnection>;
  /** Agents a replay or resume can find by name (`run()` also registers the agent it is given). */
  agents?: readonly Agent[];
  tools?: ToolBox | readonly Tool[];
  /** @default allowAll */
  policy?: Policy;
  /** Tool retries allowed per invocation (run, resume), across all tools. @default 10 */
  retryBudget?: number;
  /** @default the system clock */
  clock?: Clock;
  /** Run ids, this runtime's lease owner name and `ctx.newId()` values. @default ULIDs */
  ids?: IdSource;
  /** This runtime's name as a lease holder. @default `runtime-<id>` */
  owner?: string;
  /**
   * The heartbeat reads `clock` on a wall-clock timer. With a clock that moves on every reading (a
   * test clock), a heartbeat that fires during a run changes later readings: for byte-identical
   * journals, give a heartbeat longer than the run (the testkit does).
   */
  lease?: {
    /** @default 30000 */
    ttlMs?: number;
    /** @default a third of the TTL */
    heartbeatMs?: number;
  };
  /**
   * Test-only seams. `disableReplayReadBack` makes replay run effects instead of reading them back,
   * so only the unique index (the backstop) stops a second start: it exists to prove that
   * `assertReplayWasNotBackstopped` catches what outcome checks cannot. Never set it in real code.
   */
  unsafeTestSeams?: { disableReplayReadBack?: boolean };
  /**
   * Called at each named point of the loop, in order (see {@link RuntimePoint}). For tracing, and
   * for crash harnesses: a {@link SimulatedCrash} thrown here stops the runtime as a dead process
   * would (nothing more is written, the lease is left behind); any other error fails the call.
   */
  onPoint?: (point: RuntimePoint, detail: PointDetail) => void | Promise<void>;
}

/**
 * The journaled agent runtime. Every model call, tool call, clock read and new id is an effect:
 * journaled with a start record before it is performed and a completion (or failure) after.
 * `replay(runId, 'strict')` reads every effect back and performs none; `'resume'` reads back what
 * completed and continues live.
 */
export class Runtime {
  readonly owner: string;
  readonly store: JournalStore;
  readonly #providers: Record<string, ProviderConnection>;
  readonly #agents = new Map<string, Agent>();
  readonly #outputs = new Map<string, ValidateFunction>();
  readonly tools: ToolBox;
  readonly #policy: Policy;
  readonly #clock: Clock;
  readonly #ids: IdSource;
  readonly #ttlMs: number;
  readonly #heartbeatMs: number;
  readonly #readBack: boolean;
  readonly #onPoint: RuntimeOptions['onPoint'];
  readonly #retryBudget: number;
  /** Runs an invocation of this runtime is driving: a second one on the same run is refused, as another runtime would be. */
  readonly #active = new Set<string>();
  #invocations = 0;

  private constructor(options: RuntimeOptions) {
    this.store = options.store;
    this.#providers = options.providers;
    for (const [name, connection] of Object.entries(options.providers)) checkConnection(name, connection);
    this.tools = options.tools instanceof ToolBox ? options.tools : new ToolBox(options.tools ?? []);
    this.#policy = options.policy ?? allowAll;
    this.#clock = options.clock ?? systemClock;
    this.#ids = options.ids ?? ulidIds;
    this.owner = options.owner ?? `runtime-${this.#ids()}`;
    this.#ttlMs = options.lease?.ttlMs ?? 30_000;
    this.#heartbeatMs = options.lease?.heartbeatMs ?? Math.max(1, Math.floor(this.#ttlMs / 3));
    this.#readBack = options.unsafeTestSeams?.disableReplayReadBack !== true;
    this.#onPoint = options.onPoint;
    this.#retryBudget = options.retryBudget ?? 10;
    for (const agent of options.agents ?? []) this.#register(agent);
  }

  /** Builds a runtime; checks the providers, agents and tools once, here. */
  static build(options: RuntimeOptions): Runtime {
    return new Runtime(options);
  }

  /**
   * Starts a run of `agent` on `input` and drives it until it finishes, fails or waits for an
   * approval. Aborting `signal` cancels it: the loop stops before its next effect (never between
   * an effect's start and its end), records the run as `cancelled` and releases its lease.
   *
   * A store error that stops it is thrown as it is: a {@link JournalStorageError} (a retryable one,
   * `journal_io_error` or `journal_busy`, once it outlasted the runtime's attempts), a
   * {@link JournalWriteError} (what the store threw without naming a storage problem) or a
   * {@link JournalFileError}; its `runId` names the run. Before, the runtime recorded the run as
   * `interrupted` (result: the error's `{ code, message }`) and released its lease, each as best it could: when
   * the store refuses even those writes, the run stays `running` and its lease expires after
   * `lease.ttlMs`. Either way `resume` continues it. A {@link SimulatedCrash} writes nothing.
   */
  async run(agent: Agent | string, input: Json, options: { signal?: AbortSignal } = {}): Promise<RunOutcome> {
    const resolved = typeof agent === 'string' ? this.#agentNamed(agent) : this.#register(agent);
    const runId = this.#ids();
    const now = this.#clock();
    const run: RunRecord = { runId, agent: resolved.name, input, status: 'running', result: null, createdAt: now, updatedAt: now };
    const execution = this.#execution(run, 'run', undefined, options.signal);
    return this.#exclusively(runId, () =>
      execution.guarded(async () => {
        await execution.journal.write(
          'the run',
          () => this.store.createRun(run),
          async () => (await this.store.getRun(runId)) !== undefined,
        );
        execution.claim();
        await execution.lease();
        return execution.drive(resolved);
      }),
    );
  }

  /**
   * Replays a run from its journal. `strict`: reads every effect back, performs none and writes
   * nothing; code that asks for another effect, in another order or with other arguments, or that
   * stops before a recorded one, throws {@link NondeterminismError}. `resume`: reads back what
   * completed and continues an unfinished run live (under its lease): `running` (left by a runtime
   * that died), `interrupted` (stopped by a store error) or `waiting` alike. A store error that stops
   * a resume is handled as in {@link Runtime.run}.
   */
  async replay(runId: string, mode: ReplayMode, options: { signal?: AbortSignal } = {}): Promise<RunOutcome> {
    if (!REPLAY_MODES.includes(mode))
      throw new ModeltapeError('invalid_replay_mode', `Invalid replay mode "${String(mode)}": expected one of ${REPLAY_MODES.join(', ')}.`);
    const run = await this.store.getRun(runId);
    if (run === undefined) throw new RunNotFoundError(runId);
    const agent = this.#agentNamed(run.agent, runId);
    if (mode === 'strict') {
      const execution = this.#execution(run, mode, await this.store.read(runId), options.signal);
      return execution.guarded(() => execution.drive(agent));
    }
    const execution = this.#execution(run, mode, [], options.signal);
    return this.#exclusively(runId, () =>
      execution.guarded(async () => {
        // Under the lease, read the run and its journal as they are now: another runtime may have
        // moved it on (or finished it) since the look above.
        await execution.lease();
        const current = (await this.store.getRun(runId))!;
        execution.load(current, await this.store.read(runId));
        // A finished run is not continued; a lease a crashed runtime left on it is cleared.
        if (TERMINAL_STATUSES.includes(current.status)) return execution.stored();
        await execution.point('AfterResumed', { live: true });
        return execution.drive(agent);
      }),
    );
  }

  async #exclusively<T>(runId: string, body: () => Promise<T>): Promise<T> {
    if (this.#active.has(runId)) {
      const now = this.#clock();
      const lease = await this.store.getLease(runId);
      throw new RunLeasedError(runId, this.owner, lease?.expiresAt ?? now, now);
    }
    this.#active.add(runId);
    try {
      return await body();
    } finally {
      this.#active.delete(runId);
    }
  }

  /** `replay(runId, 'resume')`. */
  resume(runId: string, options: { signal?: AbortSignal } = {}): Promise<RunOutcome> {
    return this.replay(runId, 'resume', options);
  }

  /**
   * Cancels a run no runtime is driving (one waiting on an approval, one a store error interrupted,
   * or one left by a crash): records it as `cancelled` under its lease and releases the lease. A run
   * another runtime holds is refused with {@link RunLeasedError} (abort the signal given to that
   * runtime instead). A finished run is left as it is.
   */
  async cancel(runId: string, reason = 'cancelled by the operator'): Promise<RunOutcome> {
    const run = await this.store.getRun(runId);
    if (run === undefined) throw new RunNotFoundError(runId);
    const execution = this.#execution(run, 'resume', undefined);
    return this.#exclusively(runId, () =>
      execution.guarded(async () => {
        await execution.lease();
        const current = (await this.store.getRun(runId))!;
        if (TERMINAL_STATUSES.includes(current.status)) return execution.stored(current);
        const error = { code: 'cancelled', message: reason };
        await execution.journal.write('the cancellation', () => this.store.updateRun(runId, { status: 'cancelled', result: error, updatedAt: this.#clock() }));
        return execution.stored({ ...current, status: 'cancelled', result: error });
      }),
    );
  }

  /** Approves a pending approval (then `resume` the run). */
  async approve(approvalId: string): Promise<ApprovalRecord> {
    return this.#decide(approvalId, 'approved');
  }

  /** Rejects a pending approval (then `resume` the run: the call is reported to the model as rejected). */
  async reject(approvalId: string): Promise<ApprovalRecord> {
    return this.#decide(approvalId, 'rejected');
  }

  approvals(runId: string): Promise<ApprovalRecord[]> {
    return this.store.approvals(runId);
  }

  journal(runId: string): Promise<StoredRecord[]> {
    return this.store.read(runId);
  }

  async #decide(approvalId: string, decision: 'approved' | 'rejected'): Promise<ApprovalRecord> {
    const decided = await this.store.decideApproval(approvalId, decision, this.#clock());
    if (decided === undefined)
      throw new ModeltapeError('approval_not_found', `No approval ${approvalId} in this journal. List a run's approvals with runtime.approvals(runId).`);
    if (decided.decision !== decision)
      throw new ModeltapeError('approval_already_decided', `Approval ${approvalId} was already ${decided.decision}; a decision is final.`);
    return decided;
  }

  #register(agent: Agent): Agent {
    const known = this.#agents.get(agent.name);
    if (known !== undefined) {
      if (known === agent || canonicalJson(known) === canonicalJson(agent)) return known;
      throw new ModeltapeError(
        'agent_redefined',
        `This runtime already knows an agent named "${agent.name}", defined otherwise (${describeAgentChange(known, agent)}). Runs and replays find agents by name: give the new definition another name, or build another runtime.`,
      );
    }
    if (!(agent.provider in this.#providers)) {
      throw new ModeltapeError(
        'unknown_provider',
        `Agent "${agent.name}" uses provider "${agent.provider}", which this runtime was not given (providers: ${Object.keys(this.#providers).join(', ') || 'none'}).`,
      );
    }
    for (const name of agent.tools ?? []) {
      if (this.tools.get(name) === undefined)
        throw new ModeltapeError(
          'unknown_tool',
          `Agent "${agent.name}" is granted tool "${name}", which is not in the tool box (tools: ${this.tools.names().join(', ') || 'none'}).`,
        );
    }
    if (agent.output !== undefined) this.#outputs.set(agent.name, compileForeignSchema(createLenientValidator(), agent.output));
    this.#agents.set(agent.name, agent);
    return agent;
  }

  #agentNamed(name: string, runId?: string): Agent {
    const agent = this.#agents.get(name);
    if (agent === undefined) {
      throw new ModeltapeError(
        'unknown_agent',
        `${runId ? `Run ${runId} belongs to agent "${name}", which` : `Agent "${name}"`} is not registered with this runtime (agents: ${[...this.#agents.keys()].join(', ') || 'none'}). Pass it in the runtime's agents option.`,
      );
    }
    return agent;
  }

  #execution(run: RunRecord, mode: 'run' | ReplayMode, records: StoredRecord[] | undefined, signal?: AbortSignal): Execution {
    return new Execution({
      signal,
      store: this.store,
      owner: this.owner,
      tools: this.tools,
      run,
      mode,
      records,
      readBack: this.#readBack,
      onPoint: this.#onPoint,
      retryBudget: this.#retryBudget,
      writer: `${this.owner}#${++this.#invocations}`,
      clock: this.#clock,
      ids: this.#ids,
      policy: this.#policy,
      providers: this.#providers,
      outputs: this.#outputs,
      ttlMs: this.#ttlMs,
      heartbeatMs: this.#heartbeatMs,
    });
  }
}

function describeAgentChange(known: Agent, given: Agent): string {
  const fields = [...new Set([...Object.keys(known), ...Object.keys(given)])].filter(
    (field) =>
      canonicalJson((known as unknown as Record<string, unknown>)[field] ?? null) !==
      canonicalJson((given as unknown as Record<string, unknown>)[field] ?? null),
  );
  return `${fields.join(', ')} differ${fields.length === 1 ? 's' : ''}`;
}
