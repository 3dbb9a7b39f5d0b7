import type { Json } from '../core/internal.js';
/**
 * The contract every journal store keeps. The runtime writes through it and nothing else, so a
 * store is swappable (SQLite file, SQLite in memory, a Faulty wrapper, a user's decorator), and
 * `checkJournalStore()` holds every implementation to the same behaviour.
 */

/**
 * What an effect is: a model call, a tool call, a clock read, a new id, or a policy evaluation
 * (journaled with the inputs it saw, keyed like the tool call it decided: `0.1.policy` before
 * `0.1.tool`; its data is `{ request, step, previousCalls }`, the last a count of the run's tool
 * starts before it, which are the calls its view listed).
 */
export const EFFECT_KINDS = ['model', 'tool', 'now', 'id', 'policy'] as const;
export type EffectKind = (typeof EFFECT_KINDS)[number];

/** `start` before an effect is performed; then `complete` with its result, or `fail` with its error. */
export type JournalRecordType = 'start' | 'complete' | 'fail';

/** A JSON value as the journal stores it. */
export type { Json };

/** One line of a run's journal. */
export interface JournalRecord {
  /** A ULID, unique in the store. Appending a record whose id is already there is a no-op. */
  id: string;
  runId: string;
  /**
   * The effect's deterministic key: `<step>.<ordinal>.<kind>`, e.g. `3.1.tool`: the same code
   * given the same answers asks for the same keys in the same order.
   */
  effectKey: string;
  type: JournalRecordType;
  /** `start`: the effect's arguments; `complete`: its result; `fail`: its error. */
  data: Json;
  /** The injected clock's reading when the record was made (ms). */
  at: number;
}

/** A record as read back: where the store put it (1, 2, 3, … per run, in append order). */
export interface StoredRecord extends JournalRecord {
  position: number;
}

/**
 * What happened to one appended record. `rejected`: a `start` for an effect key that already has
 * one (under another id): the backstop held, and the store counted it.
 */
export type AppendOutcome = 'appended' | 'duplicate' | 'rejected';

/**
 * Where a run stands. `running`: a runtime is driving it, or one that died (or that a store error
 * stopped and whose store refused every write after) left it, and its lease expires. `waiting`: on
 * an approval. `interrupted`: a store error (a full disk, a read-only file, an I/O error, a lock
 * held too long) stopped the runtime driving it, which recorded that and then released its lease
 * (if the store refused the release too, the lease expires). `resume` continues an `interrupted`
 * run like a `running` one. `completed`, `failed`, `cancelled`: terminal. The journal keeps a
 * status as text, so a journal written before `interrupted` existed reads as it did.
 */
export const RUN_STATUSES = ['running', 'waiting', 'interrupted', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** The statuses a run never leaves. */
export const TERMINAL_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

export interface RunRecord {
  runId: string;
  agent: string;
  input: Json;
  status: RunStatus;
  /**
   * The final output (`completed`); the error (`failed`, `cancelled`, and `interrupted`: the store
   * error's `{ code, message }`, its message as masked when the error was made); otherwise null.
   */
  result: Json;
  createdAt: number;
  updatedAt: number;
}

export interface Lease {
  owner: string;
  /** Clock reading (ms) after which another runtime may take the run. */
  expiresAt: number;
}

/** An operator's decision awaited by a run. */
export interface ApprovalRecord {
  /** `<runId>/<effectKey>`: one approval per effect. */
  approvalId: string;
  runId: string;
  effectKey: string;
  /** `interrupted_side_effect` for an in-doubt tool call, or the kind a policy asked for. */
  kind: string;
  reason: string;
  /** The tool request waiting on it. */
  request: Json;
  /** `consumed`: an approved interrupted call was run again under it (an approval lets it run once). */
  decision: 'pending' | 'approved' | 'rejected' | 'consumed';
  createdAt: number;
  decidedAt: number | null;
}

export interface JournalStore {
  /** Creates a run. Throws when the run id exists. */
  createRun(run: RunRecord): Promise<void>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /** Sets a run's status and result (idempotent: setting the same values twice is harmless). */
  updateRun(runId: string, update: { status: RunStatus; result: Json; updatedAt: number }): Promise<void>;

  /**
   * Appends records atomically, in order, at the run's next positions, and says what happened to
   * each: a record whose id is stored is a `duplicate` (not stored twice: a retry after an error is
   * safe); a `start` whose effect key already has a start is `rejected` and counted (the backstop).
   * A record whose id is stored for another run, effect or type is an error, and the batch is not stored.
   */
  append(records: readonly JournalRecord[]): Promise<AppendOutcome[]>;
  /** A run's records in position order. */
  read(runId: string): Promise<StoredRecord[]>;
  /** How many `start` records the unique index rejected for this run, ever. */
  backstopRejections(runId: string): Promise<number>;

  /**
   * Takes a run's lease when nobody holds it, it expired (`expiresAt <= now`), or `owner` holds
   * it already (then it is extended). Returns the lease now held: `owner`'s on success, the
   * holder's otherwise.
   */
  acquireLease(runId: string, owner: string, expiresAt: number, now: number): Promise<{ acquired: boolean; lease: Lease }>;
  /** Extends the lease only if `owner` still holds it. */
  renewLease(runId: string, owner: string, expiresAt: number): Promise<boolean>;
  /** Drops the lease only if `owner` still holds it (compare-and-set). */
  releaseLease(runId: string, owner: string): Promise<boolean>;
  getLease(runId: string): Promise<Lease | undefined>;

  /** Records an approval request. A second request for the same approval id keeps the first. */
  requestApproval(approval: ApprovalRecord): Promise<ApprovalRecord>;
  /** Decides a pending approval; returns it as stored (a decided one is not changed again). */
  decideApproval(approvalId: string, decision: 'approved' | 'rejected', decidedAt: number): Promise<ApprovalRecord | undefined>;
  approvals(runId: string): Promise<ApprovalRecord[]>;
  /** Marks an approved approval consumed (compare-and-set): true only for the call that consumed it. */
  consumeApproval(approvalId: string, at: number): Promise<boolean>;

  close(): Promise<void>;
}

/**
 * A decorator that forwards the whole store contract to another store. Extend it and override
 * what you want to observe or change; whatever you do not override keeps the contract.
 */
export class ForwardingJournalStore implements JournalStore {
  readonly inner: JournalStore;

  constructor(inner: JournalStore) {
    this.inner = inner;
  }

  createRun(run: RunRecord): Promise<void> {
    return this.inner.createRun(run);
  }
  getRun(runId: string): Promise<RunRecord | undefined> {
    return this.inner.getRun(runId);
  }
  updateRun(runId: string, update: { status: RunStatus; result: Json; updatedAt: number }): Promise<void> {
    return this.inner.updateRun(runId, update);
  }
  append(records: readonly JournalRecord[]): Promise<AppendOutcome[]> {
    return this.inner.append(records);
  }
  read(runId: string): Promise<StoredRecord[]> {
    return this.inner.read(runId);
  }
  backstopRejections(runId: string): Promise<number> {
    return this.inner.backstopRejections(runId);
  }
  acquireLease(runId: string, owner: string, expiresAt: number, now: number): Promise<{ acquired: boolean; lease: Lease }> {
    return this.inner.acquireLease(runId, owner, expiresAt, now);
  }
  renewLease(runId: string, owner: string, expiresAt: number): Promise<boolean> {
    return this.inner.renewLease(runId, owner, expiresAt);
  }
  releaseLease(runId: string, owner: string): Promise<boolean> {
    return this.inner.releaseLease(runId, owner);
  }
  getLease(runId: string): Promise<Lease | undefined> {
    return this.inner.getLease(runId);
  }
  requestApproval(approval: ApprovalRecord): Promise<ApprovalRecord> {
    return this.inner.requestApproval(approval);
  }
  decideApproval(approvalId: string, decision: 'approved' | 'rejected', decidedAt: number): Promise<ApprovalRecord | undefined> {
    return this.inner.decideApproval(approvalId, decision, decidedAt);
  }
  approvals(runId: string): Promise<ApprovalRecord[]> {
    return this.inner.approvals(runId);
  }
  consumeApproval(approvalId: string, at: number): Promise<boolean> {
    return this.inner.consumeApproval(approvalId, at);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** `<step>.<ordinal>.<kind>` */
export function effectKey(step: number, ordinal: number, kind: EffectKind): string {
  return `${step}.${ordinal}.${kind}`;
}
