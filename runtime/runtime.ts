import { canonicalJson } from '../recordings/internal.js';
import { diffJson, excerpt, ModeltapeError } from '../core/internal.js';
import { compileForeignSchema, createLenientValidator, type ValidateFunction } from '../schema/internal.js';
import { JournalFileError, JournalStorageError, JournalWriteError, LeaseLostError, ModelCallError, NondeterminismError, RunLeasedError, RunNotFoundError } from './errors.js';
import { SimulatedCrash } from './faulty.js';
import { recordId, systemClock, ulidIds, type Clock, type IdSource } from './ids.js';
import { effectKey, TERMINAL_STATUSES, type AppendOutcome, type ApprovalRecord, type EffectKind, type JournalRecord, type JournalStore, type Json, type RunRecord, type RunStatus, type StoredRecord } from './journal-store.js';
import { callModel, checkConnection, type ModelAnswer, type ProviderConnection, type Turn } from './model-providers.js';
import { allowAll, type Policy, type PolicyDecision, type PolicyRequest, type RunView } from './policy.js';
import { ToolBox, type Tool, type ToolContext } from './tool-box.js';

/** An agent: who it talks to, what it is told, what it may call, and what it must answer. */
export interface Agent {
  name: string;
  /** A key of the runtime's `providers`. */
  provider: string;
  model: string;
  system: string;
  /** The tools granted (names in the tool box). @default none */
  tools?: readonly string[];
  /** JSON Schema the final answer must match; the answer is then parsed JSON. */
  output?: Record<string, unknown>;
  /** @default 20 */
  maxSteps?: number;
  /** @default 1024 */
  maxTokens?: number;
}

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
 * The named points of the loop. `AfterStepStarted`: a step (model turn) began. `AfterDecided`: the
 * model's answer is journaled. `AfterAllowed`: the policy (or an approval) allowed a tool call.
 * `AfterToolStarted`: the call's start is journaled. `AfterToolEffect`: the tool returned (or
 * threw), its end not yet journaled. `AfterToolFinished`: its end is journaled. `AfterResumed`: a
 * resume holds the lease. `AfterInterrupted`: an interrupted call waits for an operator.
 */
export const RUNTIME_POINTS = ['AfterStepStarted', 'AfterDecided', 'AfterAllowed', 'AfterToolStarted', 'AfterToolEffect', 'AfterToolFinished', 'AfterResumed', 'AfterInterrupted'] as const;
export type RuntimePoint = (typeof RUNTIME_POINTS)[number];

export interface PointDetail {
  runId: string;
  step: number;
  /** The effect the point is about (the model call, or the tool call). */
  key?: string;
  tool?: string;
  /** False while the loop is reading the journal back (the point was passed live before). */
  live: boolean;
  /** The runtime's lease-holder name. */
  owner: string;
}

export const REPLAY_MODES = ['strict', 'resume'] as const;
export type ReplayMode = (typeof REPLAY_MODES)[number];

/** What one effect did in one invocation. */
export interface EffectSummary {
  key: string;
  kind: EffectKind;
  /**
   * `performed`: run now; `read_back`: answered from the journal; `backstopped`: its start was
   * rejected by the unique index and the journal answered; `reconciled`: an in-doubt call the tool's
   * `reconcile` settled; `failed`: it failed (now or as recorded).
   */
  status: 'performed' | 'read_back' | 'backstopped' | 'reconciled' | 'failed';
  /** For a tool call performed now: how many attempts it took (more than 1 after retries). */
  attempts?: number;
}

export interface RunOutcome {
  runId: string;
  agent: string;
  /** How this invocation ran: a new run, a strict replay, or a resume. */
  mode: 'run' | ReplayMode;
  /** Never `interrupted`: an invocation that a store error stops throws that error instead. */
  status: RunStatus;
  /** The final answer (parsed JSON when the agent has an output schema), or null. */
  output: Json;
  /** Why the run failed. */
  error?: { code: string; message: string };
  /** The effects this invocation asked for, in order. */
  effects: EffectSummary[];
  /** How many start records the unique index rejected during this invocation. */
  backstopHits: number;
  /** Approvals the run waits for (status `waiting`). */
  pendingApprovals: ApprovalRecord[];
  /** Tool retries this invocation used, of its budget. */
  retries: { used: number; budget: number };
}

const WRITE_ATTEMPTS = 5;
const DEFAULT_MAX_STEPS = 20;
export const DEFAULT_MAX_TOKENS = 1024;

/** A failure the journal holds for an effect (or one just recorded): read back, it is thrown again. */
export class RecordedFailure extends ModeltapeError {
  readonly data: Json;
  constructor(data: Json) {
    const { name, message } = (data ?? {}) as { name?: string; message?: string };
    super('effect_failed', `${name ?? 'Error'}: ${message ?? 'the effect failed'}`);
    this.data = data;
  }
}

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

/**
 * Whether a policy's answer is one the runtime acts on: `allow`; `deny` with a reason;
 * `require_approval` with a kind of the policy's own (not `interrupted_side_effect`) and a reason.
 * Gives the answer as the journal keeps it (a JSON round trip: an `undefined` field is no field).
 */
export function checkDecision(decision: unknown): { ok: true; decision: PolicyDecision } | { ok: false; reason: string } {
  try {
    return { ok: true, decision: checkedDecision(decision) as unknown as PolicyDecision };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** A policy's answer as the journal keeps it, or an error saying what is wrong with it. */
function checkedDecision(decision: unknown): Json {
  const normalized = decision === undefined || decision === null || typeof decision !== 'object' ? undefined : (JSON.parse(JSON.stringify(decision)) as Record<string, unknown>);
  const outcome = normalized?.outcome;
  const text = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';
  const valid =
    normalized !== undefined &&
    typeof normalized === 'object' &&
    (outcome === 'allow' || (outcome === 'deny' && text(normalized.reason)) || (outcome === 'require_approval' && text(normalized.kind) && text(normalized.reason)));
  if (!valid) throw new Error(`it answered ${JSON.stringify(decision) ?? 'undefined'}, which is not a decision`);
  if (outcome === 'require_approval' && normalized.kind === 'interrupted_side_effect') throw new Error('it asked for an approval of kind interrupted_side_effect, which the runtime keeps for calls it found interrupted: use a kind of your own');
  return normalized as Json;
}

/** The run stops here until an operator decides. */
class Pause extends Error {
  readonly approval: ApprovalRecord;
  constructor(approval: ApprovalRecord) {
    super(`waiting for approval ${approval.approvalId}`);
    this.approval = approval;
  }
}

/**
 * The journal as replay reads it: top-level effects in order, one after another. Effects a call
 * performed inside itself are not in the sequence (they are read back with the call); a call run
 * again after an interruption journals its own under a fresh attempt (`<key>@2/…`).
 */
class ReplayCursor {
  readonly #starts: StoredRecord[];
  readonly #nested = new Set<string>();
  readonly #ends = new Map<string, StoredRecord>();
  #at = 0;

  constructor(records: readonly StoredRecord[]) {
    this.#starts = [];
    for (const record of records) {
      if (record.type !== 'start') {
        if (!this.#ends.has(record.effectKey)) this.#ends.set(record.effectKey, record);
      } else if (record.effectKey.includes('/')) this.#nested.add(record.effectKey);
      else this.#starts.push(record);
    }
  }

  /** How many attempts of a call the journal shows: 1, or n when effects under `<key>@n` (or its reconcile) exist. */
  attemptsOf(key: string): number {
    let attempts = 1;
    for (const nested of this.#nested) {
      const match = nested.startsWith(`${key}@`) ? /^@(\d+)/.exec(nested.slice(key.length)) : null;
      if (match) attempts = Math.max(attempts, Number(match[1]));
    }
    return attempts;
  }

  get done(): boolean {
    return this.#at >= this.#starts.length;
  }

  peek(): StoredRecord | undefined {
    return this.#starts[this.#at];
  }

  take(): { start: StoredRecord; end: StoredRecord | undefined } {
    const start = this.#starts[this.#at++]!;
    return { start, end: this.#ends.get(start.effectKey) };
  }

  /** Nested effects are not in the sequence: nothing to pass over. */
  skipNested(_key: string): void {}

  endOf(key: string): StoredRecord | undefined {
    return this.#ends.get(key);
  }
}

/** Where effects are keyed: a step's top level, or under one attempt of a tool call (or its reconcile). */
interface Scope {
  prefix: string | undefined;
  ordinal: number;
  /** Once its attempt has settled, a context may journal nothing more. */
  closed: boolean;
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
   * A store error that stops it (a {@link JournalStorageError}, a {@link JournalWriteError}, a
   * {@link JournalFileError}) is thrown as it is, after the runtime recorded the run as `interrupted`
   * (result: the error's `{ code, message }`) and released its lease, each as best it could: when
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
        await execution.write('the run', () => this.store.createRun(run), async () => (await this.store.getRun(runId)) !== undefined);
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
    if (!REPLAY_MODES.includes(mode)) throw new ModeltapeError('invalid_replay_mode', `Invalid replay mode "${String(mode)}": expected one of ${REPLAY_MODES.join(', ')}.`);
    const run = await this.store.getRun(runId);
    if (run === undefined) throw new RunNotFoundError(runId);
    const agent = this.#agentNamed(run.agent, runId);
    if (mode === 'strict') {
      const execution = this.#execution(run, mode, await this.store.read(runId), options.signal);
      return execution.guarded(() => execution.drive(agent));
    }
    const execution = this.#execution(run, mode, [], options.signal);
    return this.#exclusively(runId, () => execution.guarded(async () => {
      // Under the lease, read the run and its journal as they are now: another runtime may have
      // moved it on (or finished it) since the look above.
      await execution.lease();
      const current = (await this.store.getRun(runId))!;
      execution.load(current, await this.store.read(runId));
      // A finished run is not continued; a lease a crashed runtime left on it is cleared.
      if (TERMINAL_STATUSES.includes(current.status)) return execution.stored();
      await execution.point('AfterResumed', { live: true });
      return execution.drive(agent);
    }));
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
    return this.#exclusively(runId, () => execution.guarded(async () => {
      await execution.lease();
      const current = (await this.store.getRun(runId))!;
      if (TERMINAL_STATUSES.includes(current.status)) return execution.stored(current);
      const error = { code: 'cancelled', message: reason };
      await execution.write('the cancellation', () => this.store.updateRun(runId, { status: 'cancelled', result: error, updatedAt: this.#clock() }));
      return execution.stored({ ...current, status: 'cancelled', result: error });
    }));
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
    if (decided === undefined) throw new ModeltapeError('approval_not_found', `No approval ${approvalId} in this journal. List a run's approvals with runtime.approvals(runId).`);
    if (decided.decision !== decision) throw new ModeltapeError('approval_already_decided', `Approval ${approvalId} was already ${decided.decision}; a decision is final.`);
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
      throw new ModeltapeError('unknown_provider', `Agent "${agent.name}" uses provider "${agent.provider}", which this runtime was not given (providers: ${Object.keys(this.#providers).join(', ') || 'none'}).`);
    }
    for (const name of agent.tools ?? []) {
      if (this.tools.get(name) === undefined) throw new ModeltapeError('unknown_tool', `Agent "${agent.name}" is granted tool "${name}", which is not in the tool box (tools: ${this.tools.names().join(', ') || 'none'}).`);
    }
    if (agent.output !== undefined) this.#outputs.set(agent.name, compileForeignSchema(createLenientValidator(), agent.output));
    this.#agents.set(agent.name, agent);
    return agent;
  }

  #agentNamed(name: string, runId?: string): Agent {
    const agent = this.#agents.get(name);
    if (agent === undefined) {
      throw new ModeltapeError('unknown_agent', `${runId ? `Run ${runId} belongs to agent "${name}", which` : `Agent "${name}"`} is not registered with this runtime (agents: ${[...this.#agents.keys()].join(', ') || 'none'}). Pass it in the runtime's agents option.`);
    }
    return agent;
  }

  #execution(run: RunRecord, mode: 'run' | ReplayMode, records: StoredRecord[] | undefined, signal?: AbortSignal): Execution {
    return new Execution({
      signal,
      runtime: this,
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

interface ExecutionSetup {
  signal: AbortSignal | undefined;
  runtime: Runtime;
  run: RunRecord;
  mode: 'run' | ReplayMode;
  records: StoredRecord[] | undefined;
  readBack: boolean;
  onPoint: RuntimeOptions['onPoint'];
  retryBudget: number;
  writer: string;
  clock: Clock;
  ids: IdSource;
  policy: Policy;
  providers: Record<string, ProviderConnection>;
  outputs: Map<string, ValidateFunction>;
  ttlMs: number;
  heartbeatMs: number;
}

/** One invocation of a run: a new run, a strict replay or a resume. */
class Execution {
  readonly #setup: ExecutionSetup;
  readonly #store: JournalStore;
  readonly #runId: string;
  #cursor: ReplayCursor | undefined;
  readonly #effects: EffectSummary[] = [];
  #step = 0;
  #top: Scope = { prefix: undefined, ordinal: 0, closed: false };
  #heartbeat: NodeJS.Timeout | undefined;
  #leaseLost = false;
  #leased = false;
  /** The lease write failed: it may have been stored all the same (a release is then tried). */
  #leaseInDoubt = false;
  #crashed = false;
  /** This invocation drives the run (or just created it): a store error that stops it marks it `interrupted`. */
  #claimed = false;
  /** The status the run ended this invocation with is stored: nothing may overwrite it. */
  #statusWritten = false;
  #rejectionsBefore = 0;
  #retriesUsed = 0;
  readonly #attempts = new Map<string, number>();

  constructor(setup: ExecutionSetup) {
    this.#setup = setup;
    this.#store = setup.runtime.store;
    this.#runId = setup.run.runId;
    this.#cursor = setup.records === undefined ? undefined : new ReplayCursor(setup.records);
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
      this.#rejectionsBefore = this.#setup.mode === 'run' ? 0 : await this.#store.backstopRejections(this.#runId);
      return await body();
    } catch (error) {
      if (error instanceof SimulatedCrash) this.#crashed = true;
      else if (isStoreFailure(error)) {
        await this.#markInterrupted(error as ModeltapeError);
        // The caller of run() never saw the run's id: the error carries it, to resume by.
        (error as { runId?: string }).runId ??= this.#runId;
      }
      throw error;
    } finally {
      if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
      // A crashed process releases nothing: its lease is left to expire.
      if ((this.#leased || this.#leaseInDoubt) && !this.#crashed && !this.#leaseLost) {
        // A release that keeps failing is left to expire; a crash while releasing is still a crash.
        await this.write('the lease release', () => this.#store.releaseLease(this.#runId, this.#setup.runtime.owner)).catch((error: unknown) => {
          if (error instanceof SimulatedCrash) throw error;
        });
      }
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
    if (!this.#claimed || this.#statusWritten || this.#leaseLost || this.#crashed) return;
    const { runtime, clock } = this.#setup;
    try {
      const lease = await this.#store.getLease(this.#runId);
      if (lease === undefined ? this.#leased : lease.owner !== runtime.owner) return;
      // The final status may have been stored while its writer was told it failed.
      const stored = await this.#store.getRun(this.#runId);
      if (stored === undefined || TERMINAL_STATUSES.includes(stored.status)) return;
      const result: Json = { code: error.code, message: error.message };
      await this.write('the interrupted status', () => this.#store.updateRun(this.#runId, { status: 'interrupted', result, updatedAt: clock() }));
    } catch (failure) {
      // A crash while writing it is still a crash; any other failure leaves the run as it was.
      if (failure instanceof SimulatedCrash) {
        this.#crashed = true;
        throw failure;
      }
    }
  }

  /** Takes the run's lease (or throws {@link RunLeasedError}) and keeps it alive with a heartbeat. */
  async lease(): Promise<void> {
    const { clock, ttlMs, heartbeatMs, runtime } = this.#setup;
    const now = clock();
    const result = await this.write('the lease', () => this.#store.acquireLease(this.#runId, runtime.owner, now + ttlMs, now)).catch((error: unknown) => {
      if (isStoreFailure(error)) this.#leaseInDoubt = true;
      throw error;
    });
    if (!result.acquired) throw new RunLeasedError(this.#runId, result.lease.owner, result.lease.expiresAt, now);
    this.#leased = true;
    this.#heartbeat = setInterval(() => {
      if (this.#crashed || this.#leaseLost) return;
      this.#store.renewLease(this.#runId, runtime.owner, clock() + ttlMs).then(
        (renewed) => {
          if (!renewed) this.#leaseLost = true;
        },
        (error: unknown) => {
          // A dead process, or a store handle closed under it: the heartbeat stops with it.
          if (error instanceof SimulatedCrash) this.#crashed = true;
          if (error instanceof SimulatedCrash || (error as { code?: string })?.code === 'journal_closed') clearInterval(this.#heartbeat);
        },
      );
    }, heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Tells the onPoint hook where the loop is. */
  async point(point: RuntimePoint, detail: { key?: string; tool?: string; live: boolean }): Promise<void> {
    await this.#setup.onPoint?.(point, { runId: this.#runId, step: this.#step, owner: this.#setup.runtime.owner, ...detail });
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
      const reason = signal.reason instanceof Error ? signal.reason.message : typeof signal.reason === 'string' ? signal.reason : 'cancelled through its signal';
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
    const tools = (agent.tools ?? []).map((name) => this.#setup.runtime.tools.get(name)!);
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
          ...(step === 0 ? { system: agent.system, tools: tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })) as unknown as Json, output: (agent.output ?? null) as Json } : {}),
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
              (await callModel(agent.provider, connection, { model: agent.model, system: agent.system, turns, tools, output: agent.output, maxTokens: agent.maxTokens ?? DEFAULT_MAX_TOKENS })) as unknown as Json,
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
              const problems = parsed.ok ? (validate.errors ?? []).map((problem) => `${problem.instancePath || '(answer)'} ${problem.message ?? ''}`).join('; ') : 'it is not JSON';
              error = { code: 'output_schema', message: `Agent "${agent.name}" answered with output that does not match its output schema: ${problems}. Answer: ${excerpt(String(answer.text), 200)}` };
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
      throw new NondeterminismError(this.#runId, 'unreached', { key: next.effectKey, kind: kindOf(next.effectKey), data: next.data }, undefined);
    }
    if (!this.#strict) {
      const result: Json = status === 'completed' ? output : status === 'failed' || status === 'cancelled' ? (error as unknown as Json) : null;
      await this.write('the run status', () => this.#store.updateRun(this.#runId, { status, result, updatedAt: this.#setup.clock() }));
      this.#statusWritten = true;
    }
    const backstopHits = (await this.#store.backstopRejections(this.#runId)) - this.#rejectionsBefore;
    return { runId: this.#runId, agent: agent.name, mode: this.#setup.mode, status, output, ...(error ? { error } : {}), effects: this.#effects, backstopHits, pendingApprovals: pending, retries: { used: this.#retriesUsed, budget: this.#setup.retryBudget } };
  }

  async #toolCall(agent: Agent, name: string, args: Json, callId: string, previousCalls: ReadonlyArray<{ tool: string; args: Json }>, policy: Policy): Promise<{ content: string; isError: boolean; ran: boolean }> {
    const acceptance = this.#setup.runtime.tools.accept(name, args, agent.tools ?? []);
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
      decision = (await this.#effect('policy', inputs, async () => checkedDecision(policy(structuredClone(request), view)), undefined, false)) as unknown as PolicyDecision;
    } catch (error) {
      if (!(error instanceof RecordedFailure)) throw error;
      throw new RunFailed('policy_failed', `The policy failed on ${name}(${JSON.stringify(args)}) at step ${this.#step}: ${error.message}. A policy must answer every request with allow, deny (with a reason) or require_approval (with a kind and a reason).`);
    }
    // A call the policy stops still takes its place: the next call of the step gets the next key.
    const skip = (content: string): { content: string; isError: boolean; ran: boolean } => {
      this.#nextKey('tool');
      return { content, isError: true, ran: false };
    };
    if (decision.outcome === 'deny') return skip(JSON.stringify({ error: `denied by policy${decision.rule ? ` (${decision.rule})` : ''}: ${decision.reason}` }));
    if (decision.outcome === 'require_approval') {
      const key = this.#peekKey('tool');
      const approval = await this.#approval(`${this.#runId}/${key}/${decision.kind}`, key, decision.kind, decision.reason, { tool: name, args, callId });
      if (approval.decision === 'pending') {
        // A run cancelled while it waited ends there in a strict replay too.
        if (this.#strict && this.#setup.run.status === 'cancelled') throw new Cancelled(((this.#setup.run.result ?? {}) as { message?: string }).message ?? 'cancelled');
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
    const approval: ApprovalRecord = { approvalId, runId: this.#runId, effectKey: key, kind, reason, request, decision: 'pending', createdAt: this.#setup.clock(), decidedAt: null };
    if (this.#strict) return approval;
    return this.write(`approval ${approvalId}`, () => this.#store.requestApproval(approval));
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
  async #effect(kind: EffectKind, data: Json, perform: (context: ToolContext) => Promise<Json>, tool?: Tool, advance = true, scope: Scope = this.#top): Promise<Json> {
    const key = advance ? this.#nextKey(kind, scope) : this.#peekKey(kind, scope);
    const requested = { key, kind, data };
    const cursor = this.#cursor;
    // Effects inside a call are live: a call is only asked to run again (after an interruption)
    // under a fresh attempt, whose effects the journal cannot hold yet.
    const topLevel = scope.prefix === undefined;
    if (cursor !== undefined && this.#setup.readBack && !cursor.done && topLevel) {
      const { start, end } = cursor.take();
      const recorded = { key: start.effectKey, kind: kindOf(start.effectKey), data: start.data };
      if (start.effectKey !== key) throw new NondeterminismError(this.#runId, 'mismatch', recorded, requested, diffJson(recorded, requested, { stopAfter: 10 }));
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
        throw new ModeltapeError('effect_in_doubt', `Strict replay of run ${this.#runId} reached effect ${key} (${kind}), which started and never completed: it is in doubt, and strict replay performs nothing. Resume the run (runtime.resume) to settle it.`);
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
    if (this.#leaseLost) throw new LeaseLostError(this.#runId, this.#setup.runtime.owner);
    // Only between top-level effects: never inside a tool, between its start and its end.
    if (topLevel) this.#checkCancelled();
    const [outcome] = await this.#append([this.#record(key, 'start', data)]);
    if (outcome === 'rejected') {
      // The backstop held: another start of this effect is in the journal. Answer from it.
      const end = (await this.#store.read(this.#runId)).find((record) => record.effectKey === key && record.type !== 'start');
      if (end !== undefined) return this.#settled(key, kind, end, 'backstopped');
      return this.#inDoubt(key, kind, data, perform, tool, new ReplayCursor(await this.#store.read(this.#runId)).attemptsOf(key));
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
  async #perform(key: string, kind: EffectKind, perform: (context: ToolContext) => Promise<Json>, status: EffectSummary['status'], tool?: Tool, attempt = 1): Promise<Json> {
    // A call's own effects are keyed under its attempt: `<key>/…` the first time, `<key>@2/…` when run again.
    const scope: Scope = { prefix: attempt === 1 ? key : `${key}@${attempt}`, ordinal: 0, closed: false };
    let result: Json;
    let failure: Json | undefined;
    try {
      result = await perform(this.#context(new AbortController().signal, key, scope));
    } catch (error) {
      if (error instanceof SimulatedCrash || error instanceof Pause || error instanceof Cancelled || error instanceof RunFailed || error instanceof LeaseLostError || error instanceof NondeterminismError || isStoreFailure(error)) throw error;
      failure = { name: (error as Error)?.name ?? 'Error', message: (error as Error)?.message ?? String(error), ...(error instanceof ModelCallError && error.status !== undefined ? { status: error.status } : {}) };
      result = null;
    } finally {
      scope.closed = true;
    }
    const isTool = kind === 'tool';
    if (isTool) await this.point('AfterToolEffect', { key, tool: tool?.name, live: true });
    if (failure !== undefined) {
      await this.#append([this.#record(key, 'fail', failure)]);
      if (isTool) await this.point('AfterToolFinished', { key, tool: tool?.name, live: true });
      const attempts = this.#attempts.get(key);
      this.#effects.push({ key, kind, status: 'failed', ...(attempts !== undefined ? { attempts } : {}) });
      throw new RecordedFailure(failure);
    }
    await this.#append([this.#record(key, 'complete', result)]);
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
  async #inDoubt(key: string, kind: EffectKind, data: Json, perform: (context: ToolContext) => Promise<Json>, tool: Tool | undefined, attempts: number): Promise<Json> {
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
        await this.#append([this.#record(key, 'complete', result)]);
        this.#effects.push({ key, kind, status: 'reconciled' });
        return result;
      }
      if (answer?.status === 'not_applied') {
        await this.#confirmLease();
        return this.#perform(key, kind, perform, 'performed', tool, next);
      }
      // Anything else (a throw, no answer, `applied` without a result, an unknown status) is not an
      // answer: the call is not run again on it; an operator decides, as without a hook.
    }
    // One approval lets the call run once more. If that run was interrupted in turn (the approval is
    // consumed and still no end is recorded), it takes a new approval: `<run>/<key>`, then `#2`, ….
    const own = new RegExp(`^${escapeRegExp(`${this.#runId}/${key}`)}(#\\d+)?$`);
    const asked = (await this.#store.approvals(this.#runId)).filter((candidate) => candidate.kind === 'interrupted_side_effect' && own.test(candidate.approvalId));
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
      await this.#append([this.#record(key, 'fail', failure)]);
      this.#effects.push({ key, kind, status: 'failed' });
      throw new RecordedFailure(failure);
    }
    // Approved: consume it first, so a crash during this run cannot reuse it. Only the call that
    // consumed it runs the tool: if the compare-and-set did not report ours (another runtime took
    // the run, or the write's answer was lost), nothing runs, and a later resume asks again.
    if (!this.#strict) {
      await this.#confirmLease();
      const consumed = await this.write(`the consumption of approval ${approval.approvalId}`, () => this.#store.consumeApproval(approval.approvalId, this.#setup.clock()));
      if (consumed !== true) {
        throw new ModeltapeError(
          'approval_not_ours',
          `Approval ${approval.approvalId} was not consumed by this runtime (another runtime took it, or this runtime's write of it was lost), so ${tool.name} is not run again here. Resume the run: if the call still has no recorded end, it asks for a new approval.`,
        );
      }
    }
    return this.#perform(key, kind, perform, 'performed', tool, next);
  }

  /** Before a call runs again after an interruption: this runtime must still hold the run. */
  async #confirmLease(): Promise<void> {
    if (this.#strict || !this.#leased) return;
    const { clock, ttlMs, runtime } = this.#setup;
    const held = await this.write('the lease renewal', () => this.#store.renewLease(this.#runId, runtime.owner, clock() + ttlMs));
    if (!held) {
      this.#leaseLost = true;
      throw new LeaseLostError(this.#runId, runtime.owner);
    }
  }

  /** A tool's context: its effects go under its own scope, and nothing after the attempt settled. */
  #context(signal: AbortSignal, key: string, scope: Scope): ToolContext {
    const effect = async (kind: 'now' | 'id', produce: () => Json): Promise<Json> => {
      if (scope.closed) throw new ModeltapeError('tool_call_closed', `The call ${this.#runId}/${key} is over: its context cannot journal ${kind === 'now' ? 'now()' : 'newId()'} any more (await every context call before returning).`);
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

  #record(key: string, type: JournalRecord['type'], data: Json): JournalRecord {
    const at = this.#setup.clock();
    return { id: recordId(at, this.#runId, key, type, this.#setup.writer), runId: this.#runId, effectKey: key, type, data, at };
  }

  /**
   * Appends, surviving a store that fails: after an error it reads what was stored and appends
   * the rest again (by record id, so nothing lands twice).
   */
  async #append(records: JournalRecord[]): Promise<AppendOutcome[]> {
    if (this.#strict && this.#setup.readBack) throw new ModeltapeError('internal', 'strict replay tried to write to the journal');
    let lastError: unknown;
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      try {
        return await this.#store.append(records);
      } catch (error) {
        if (error instanceof SimulatedCrash) throw error;
        if (!isRetryable(error)) throw asStoreFailure(error, `${records.length === 1 ? 'a record' : `${records.length} records`} of run ${this.#runId}`, attempt);
        lastError = error;
      }
      try {
        const stored = await this.#store.read(this.#runId);
        const byId = new Set(stored.map((record) => record.id));
        if (records.every((record) => byId.has(record.id))) return records.map(() => 'appended');
      } catch (error) {
        if (error instanceof SimulatedCrash) throw error;
        lastError = error;
      }
    }
    throw new JournalWriteError(`${records.length} record${records.length === 1 ? '' : 's'} of run ${this.#runId} (${records.map((record) => `${record.effectKey} ${record.type}`).join(', ')})`, WRITE_ATTEMPTS, lastError);
  }

  /** A write other than an append: retried (each is idempotent), or confirmed by `verify` after an error. */
  async write<T>(what: string, operation: () => Promise<T>, verify?: () => Promise<boolean>): Promise<T> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      try {
        return await operation();
      } catch (error) {
        if (error instanceof SimulatedCrash) throw error;
        if (!isRetryable(error)) throw asStoreFailure(error, what, attempt);
        lastError = error;
        if (verify !== undefined) {
          try {
            if (await verify()) return undefined as T;
          } catch (verifyError) {
            if (verifyError instanceof SimulatedCrash) throw verifyError;
          }
        }
      }
    }
    throw new JournalWriteError(what, WRITE_ATTEMPTS, lastError);
  }
}

async function runTool(tool: Tool, args: Json, context: ToolContext): Promise<Json> {
  const timeoutMs = tool.timeoutMs ?? 30_000;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ModeltapeError('tool_timeout', `Tool ${tool.name} did not finish within ${timeoutMs} ms (its timeoutMs).`);
      error.name = 'ToolTimeoutError';
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    // An attempt that timed out (or ended otherwise) may still be running: it can no longer journal anything.
    const closed = (): Promise<never> =>
      Promise.reject(new ModeltapeError('tool_call_closed', `The call ${context.operationId} is over (it returned, failed or timed out): its context cannot journal anything more. Await every context call before returning, and honour context.signal.`));
    const attemptContext: ToolContext = {
      ...context,
      signal: controller.signal,
      now: () => (controller.signal.aborted ? closed() : context.now()),
      newId: () => (controller.signal.aborted ? closed() : context.newId()),
    };
    const result = await Promise.race([Promise.resolve().then(() => tool.run(args, attemptContext)), timedOut]);
    return (result === undefined ? null : result) as Json;
  } finally {
    clearTimeout(timer);
    // The attempt is over, however it ended: its context is closed to late calls.
    if (!controller.signal.aborted) controller.abort(new ModeltapeError('tool_call_closed', `Tool ${tool.name}'s attempt is over.`));
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

function describeAgentChange(known: Agent, given: Agent): string {
  const fields = [...new Set([...Object.keys(known), ...Object.keys(given)])].filter((field) => canonicalJson((known as unknown as Record<string, unknown>)[field] ?? null) !== canonicalJson((given as unknown as Record<string, unknown>)[field] ?? null));
  return `${fields.join(', ')} differ${fields.length === 1 ? 's' : ''}`;
}

function kindOf(key: string): EffectKind {
  return key.slice(key.lastIndexOf('.') + 1) as EffectKind;
}

function parseJson(text: string | null): { ok: true; value: Json } | { ok: false } {
  if (text === null) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch {
    return { ok: false };
  }
}

// The journal failed under the call (through its context), not the call itself: the run stops,
// and the call is not recorded as failed.
function isStoreFailure(error: unknown): boolean {
  return error instanceof JournalWriteError || error instanceof JournalStorageError || error instanceof JournalFileError;
}

// Store errors that a retry may fix; a RunExistsError or a programming error is not one of them.
// What a store throws that is not modeltape's own (a plain Error from a store of the user's, a
// driver's error) is a store failure all the same: it stops the run, and is never handed to a
// tool or the model as the tool's failure.
function asStoreFailure(error: unknown, what: string, attempts: number): unknown {
  return error instanceof ModeltapeError ? error : new JournalWriteError(what, attempts, error);
}

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === 'store_fault' || code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_IOERR' || (error as { retryable?: unknown })?.retryable === true;
}
