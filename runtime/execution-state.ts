import type { ValidateFunction } from '../schema/internal.js';
import { EffectJournal } from './effect-journal.js';
import type { Clock, IdSource } from './ids.js';
import type { JournalStore, RunRecord, StoredRecord } from './journal-store.js';
import type { Policy } from './policy.js';
import type { ProviderConnection } from './model-providers.js';
import { ReplayCursor } from './replay-cursor.js';
import { RunLease } from './run-lease.js';
import type { EffectSummary, ReplayMode } from './run-outcome.js';
import { Cancelled } from './run-stops.js';
import type { PointDetail, RuntimePoint } from './runtime-points.js';
import type { ToolBox } from './tool-box.js';

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

/** Where effects are keyed: a step's top level, or under one attempt of a tool call (or its reconcile). */
export interface Scope {
  prefix: string | undefined;
  ordinal: number;
  /** Once its attempt has settled, a context may journal nothing more. */
  closed: boolean;
}

/**
 * What one invocation's steps share: its setup, its journal and lease, where the replay reads, the
 * step and scope being keyed, and what it has counted so far (effects, retries, attempts). The
 * loop, a tool call, an effect and the settling of an in-doubt call all read and advance this one
 * object.
 */
export class ExecutionState {
  readonly setup: ExecutionSetup;
  readonly store: JournalStore;
  readonly runId: string;
  /** This invocation's writes to the store. */
  readonly journal: EffectJournal;
  readonly lease: RunLease;
  /** What a replay or a resume reads back; undefined for a new run. */
  cursor: ReplayCursor | undefined;
  /** Every effect this invocation settled, in order. */
  readonly effects: EffectSummary[] = [];
  step = 0;
  /** The current step's top-level scope. */
  top: Scope = { prefix: undefined, ordinal: 0, closed: false };
  retriesUsed = 0;
  /** The attempt each tool call (by key) is on, once it ran. */
  readonly attempts = new Map<string, number>();

  constructor(setup: ExecutionSetup) {
    const { store, run, writer, clock, owner, ttlMs, heartbeatMs } = setup;
    this.setup = setup;
    this.store = store;
    this.runId = run.runId;
    this.cursor = setup.records === undefined ? undefined : new ReplayCursor(setup.records);
    this.journal = new EffectJournal({ store, runId: run.runId, writer, clock, readOnly: setup.mode === 'strict' && setup.readBack });
    this.lease = new RunLease({ store, journal: this.journal, runId: run.runId, owner, clock, ttlMs, heartbeatMs });
  }

  /** A strict replay: it reads back and writes nothing. */
  get strict(): boolean {
    return this.setup.mode === 'strict';
  }

  /** Whether the next effect will be performed rather than read back. */
  get live(): boolean {
    return this.cursor === undefined || this.cursor.done || !this.setup.readBack;
  }

  /** Tells the onPoint hook where the run is. */
  async point(point: RuntimePoint, detail: { key?: string; tool?: string; live: boolean }): Promise<void> {
    await this.setup.onPoint?.(point, { runId: this.runId, step: this.step, owner: this.setup.owner, ...detail });
  }

  /** Throws {@link Cancelled} once the run's signal is aborted. */
  checkCancelled(): void {
    const signal = this.setup.signal;
    if (signal?.aborted) {
      const reason =
        signal.reason instanceof Error ? signal.reason.message : typeof signal.reason === 'string' ? signal.reason : 'cancelled through its signal';
      throw new Cancelled(reason);
    }
  }
}
