import { setTimeout as sleep } from 'node:timers/promises';
import { ModeltapeError } from '../core/internal.js';
import { JournalStorageError } from './errors.js';
import {
  ForwardingJournalStore,
  type AppendOutcome,
  type ApprovalRecord,
  type JournalRecord,
  type JournalStore,
  type Json,
  type Lease,
  type RunRecord,
  type RunStatus,
  type StoredRecord,
} from './journal-store.js';

/** A fault a {@link Faulty} store injects into one write. */
export type Fault =
  /** The write fails and nothing is stored. */
  | { kind: 'fail_before_commit' }
  /** The write is stored, and the writer is told it failed: the nastiest one. */
  | { kind: 'committed_then_lost' }
  /** The process stops here: this write and every later call on the store fail with {@link SimulatedCrash}. */
  | { kind: 'crash' }
  /** The write is stored after a delay. */
  | { kind: 'latency'; ms: number }
  /** The write fails as on a full disk: a {@link JournalStorageError} (code `journal_full`, not retryable); nothing is stored. */
  | { kind: 'disk_full' }
  /**
   * The write fails as on a disk I/O error, or a connection the database server ended: a
   * {@link JournalStorageError} (code `journal_io_error`, retryable); nothing is stored.
   */
  | { kind: 'io_error' };

export const FailBeforeCommit: Fault = Object.freeze({ kind: 'fail_before_commit' });
export const CommittedThenLost: Fault = Object.freeze({ kind: 'committed_then_lost' });
/**
 * The process dies at this store write (the {@link Fault} `crash`). Not to be confused with the testkit's
 * crash points, which stop the loop at a named point (`RUNTIME_POINTS`) rather than at a write.
 */
export const CrashAtWrite: Fault = Object.freeze({ kind: 'crash' });
export const DiskFull: Fault = Object.freeze({ kind: 'disk_full' });
export const IoError: Fault = Object.freeze({ kind: 'io_error' });
export function Latency(ms: number): Fault {
  return { kind: 'latency', ms };
}

/** The writes a schedule counts (reads are never faulted; lease renewals only with `{ renewals: true }`). */
export type StoreWrite =
  | 'createRun'
  | 'updateRun'
  | 'append'
  | 'acquireLease'
  | 'renewLease'
  | 'releaseLease'
  | 'requestApproval'
  | 'decideApproval'
  | 'consumeApproval';

/** A write failed by an injected fault. `committed` says whether it was stored anyway. */
export class StoreFaultError extends ModeltapeError {
  readonly fault: Fault;
  readonly operation: StoreWrite;
  readonly write: number;
  readonly committed: boolean;
  constructor(fault: Fault, operation: StoreWrite, write: number) {
    const committed = fault.kind === 'committed_then_lost';
    super(
      'store_fault',
      `Injected fault ${fault.kind} on write #${write} (${operation}): ${committed ? 'the write was stored, and the writer is told it failed' : 'nothing was stored'}.`,
    );
    this.fault = fault;
    this.operation = operation;
    this.write = write;
    this.committed = committed;
  }
}

/**
 * The process "stopped" at an injected CrashAtWrite. Nothing after it may run: the runtime rethrows it
 * at once, without releasing its lease or writing anything, as a dead process would.
 */
export class SimulatedCrash extends ModeltapeError {
  /** The write it happened at, for a crash a Faulty store injected; 0 for one thrown at a loop point. */
  readonly write: number;
  constructor(write: number, operation: string) {
    super(
      'simulated_crash',
      write > 0
        ? `Simulated crash at write #${write} (${operation}): the store accepts nothing more on this handle. Open the journal afresh and resume the run.`
        : `Simulated crash at ${operation}: the loop stopped there, as a dead process would. Open the journal afresh and resume the run.`,
    );
    this.write = write;
  }
}

/** Which write gets which fault. The same schedule gives the same faults forever. */
export class FaultSchedule {
  readonly seed: number | undefined;
  readonly #explicit = new Map<number, Fault>();
  #from: { write: number; fault: Fault } | undefined;
  readonly #rate: number;
  readonly #faults: readonly Fault[];

  private constructor(seed: number | undefined, rate: number, faults: readonly Fault[]) {
    this.seed = seed;
    this.#rate = rate;
    this.#faults = faults;
  }

  /** Only the faults given with `.at()`. */
  static explicit(): FaultSchedule {
    return new FaultSchedule(undefined, 0, []);
  }

  /**
   * Faults drawn from a seed: each write gets one with probability `rate`, chosen among `faults`.
   * @default rate 0.1; faults FailBeforeCommit, CommittedThenLost, Latency(2) (no CrashAtWrite unless given)
   */
  static seeded(seed: number, options: { rate?: number; faults?: readonly Fault[] } = {}): FaultSchedule {
    const rate = options.rate ?? 0.1;
    if (!(rate >= 0 && rate <= 1)) throw new ModeltapeError('invalid_fault_schedule', `A fault rate must be between 0 and 1, got ${rate}.`);
    return new FaultSchedule(seed, rate, options.faults ?? [FailBeforeCommit, CommittedThenLost, Latency(2)]);
  }

  /** Injects `fault` at write number `write` (1 is the first write). */
  at(write: number, fault: Fault): this {
    if (!Number.isInteger(write) || write < 1)
      throw new ModeltapeError('invalid_fault_schedule', `Faults are placed at write numbers 1, 2, 3, …; got ${write}.`);
    this.#explicit.set(write, fault);
    return this;
  }

  /**
   * Injects `fault` at write number `write` and at every write after it: a store that stops
   * accepting writes, as on a full disk (`.from(5, FailBeforeCommit)`). Entries given with `.at()` come first.
   */
  from(write: number, fault: Fault): this {
    if (!Number.isInteger(write) || write < 1)
      throw new ModeltapeError('invalid_fault_schedule', `Faults are placed at write numbers 1, 2, 3, …; got ${write}.`);
    this.#from = { write, fault };
    return this;
  }

  /** The fault for a write number, if any: explicit entries first, then `.from()`, then the seed's draw. */
  faultAt(write: number): Fault | undefined {
    const explicit = this.#explicit.get(write) ?? (this.#from !== undefined && write >= this.#from.write ? this.#from.fault : undefined);
    if (explicit !== undefined || this.seed === undefined || this.#faults.length === 0) return explicit;
    // Each write's draw depends only on the seed and the write number, not on what came before.
    const draw = mix(this.seed, write);
    if (draw / 4294967296 >= this.#rate) return undefined;
    return this.#faults[mix(this.seed ^ 0x9e3779b9, write) % this.#faults.length];
  }
}

/** One injected fault, as {@link Faulty.injected} lists them. */
export interface InjectedFault {
  write: number;
  operation: StoreWrite;
  fault: Fault;
}

/**
 * A store that injects faults into its writes on a deterministic schedule: a seed, or explicit
 * `.at(n, fault)` entries (`new Faulty(store, 7)`, `new Faulty(store, FaultSchedule.explicit().at(3, CommittedThenLost))`).
 * Writes are numbered from 1 in the order they reach it; reads pass through.
 */
export class Faulty extends ForwardingJournalStore {
  readonly schedule: FaultSchedule;
  readonly injected: InjectedFault[] = [];
  #writes = 0;
  #crashed: SimulatedCrash | undefined;

  readonly #renewals: boolean;

  /**
   * `renewals`: count (and fault) lease renewals too. They come from a wall-clock heartbeat timer,
   * so counting them makes which write is number n depend on timing; by default they pass through
   * unnumbered, and the same schedule gives the same faults forever.
   */
  constructor(store: JournalStore, schedule: FaultSchedule | number, options: { renewals?: boolean } = {}) {
    super(store);
    this.schedule = typeof schedule === 'number' ? FaultSchedule.seeded(schedule) : schedule;
    this.#renewals = options.renewals ?? false;
  }

  /** How many writes reached this store. */
  get writes(): number {
    return this.#writes;
  }

  /** Whether an injected CrashAtWrite stopped it. */
  get crashed(): boolean {
    return this.#crashed !== undefined;
  }

  override createRun(run: RunRecord): Promise<void> {
    return this.#write('createRun', () => super.createRun(run));
  }
  override updateRun(runId: string, update: { status: RunStatus; result: Json; updatedAt: number }): Promise<void> {
    return this.#write('updateRun', () => super.updateRun(runId, update));
  }
  override append(records: readonly JournalRecord[]): Promise<AppendOutcome[]> {
    return this.#write('append', () => super.append(records));
  }
  override acquireLease(runId: string, owner: string, expiresAt: number, now: number): Promise<{ acquired: boolean; lease: Lease }> {
    return this.#write('acquireLease', () => super.acquireLease(runId, owner, expiresAt, now));
  }
  override renewLease(runId: string, owner: string, expiresAt: number): Promise<boolean> {
    if (!this.#renewals) return this.#read('renewLease', () => super.renewLease(runId, owner, expiresAt));
    return this.#write('renewLease', () => super.renewLease(runId, owner, expiresAt));
  }
  override releaseLease(runId: string, owner: string): Promise<boolean> {
    return this.#write('releaseLease', () => super.releaseLease(runId, owner));
  }
  override requestApproval(approval: ApprovalRecord): Promise<ApprovalRecord> {
    return this.#write('requestApproval', () => super.requestApproval(approval));
  }
  override decideApproval(approvalId: string, decision: 'approved' | 'rejected', decidedAt: number): Promise<ApprovalRecord | undefined> {
    return this.#write('decideApproval', () => super.decideApproval(approvalId, decision, decidedAt));
  }
  override consumeApproval(approvalId: string, at: number): Promise<boolean> {
    return this.#write('consumeApproval', () => super.consumeApproval(approvalId, at));
  }
  override getRun(runId: string): Promise<RunRecord | undefined> {
    return this.#read('getRun', () => super.getRun(runId));
  }
  override read(runId: string): Promise<StoredRecord[]> {
    return this.#read('read', () => super.read(runId));
  }
  override backstopRejections(runId: string): Promise<number> {
    return this.#read('backstopRejections', () => super.backstopRejections(runId));
  }
  override getLease(runId: string): Promise<Lease | undefined> {
    return this.#read('getLease', () => super.getLease(runId));
  }
  override approvals(runId: string): Promise<ApprovalRecord[]> {
    return this.#read('approvals', () => super.approvals(runId));
  }

  async #read<T>(operation: string, forward: () => Promise<T>): Promise<T> {
    if (this.#crashed !== undefined) throw new SimulatedCrash(this.#crashed.write, operation);
    return forward();
  }

  async #write<T>(operation: StoreWrite, forward: () => Promise<T>): Promise<T> {
    if (this.#crashed !== undefined) throw new SimulatedCrash(this.#crashed.write, operation);
    const write = ++this.#writes;
    const fault = this.schedule.faultAt(write);
    if (fault === undefined) return forward();
    this.injected.push({ write, operation, fault });
    switch (fault.kind) {
      case 'fail_before_commit':
        throw new StoreFaultError(fault, operation, write);
      case 'committed_then_lost':
        await forward();
        throw new StoreFaultError(fault, operation, write);
      case 'crash':
        this.#crashed = new SimulatedCrash(write, operation);
        throw this.#crashed;
      case 'latency':
        await sleep(fault.ms);
        return forward();
      case 'disk_full': {
        const cause = Object.assign(new Error(`database or disk is full (injected at write #${write})`), { code: 'SQLITE_FULL' });
        throw new JournalStorageError(this.#path(), 'full', operation, 'SQLITE_FULL', cause);
      }
      case 'io_error': {
        const cause = Object.assign(new Error(`disk I/O error (injected at write #${write})`), { code: 'SQLITE_IOERR' });
        throw new JournalStorageError(this.#path(), 'io', operation, 'SQLITE_IOERR', cause);
      }
    }
  }

  #path(): string {
    const path = (this.inner as { path?: unknown }).path;
    return typeof path === 'string' ? path : 'the faulty store';
  }
}

// A 32-bit integer hash of (seed, n): murmur3's finalizer over a simple combination.
function mix(seed: number, n: number): number {
  let h = (seed ^ Math.imul(n, 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
