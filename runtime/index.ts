/**
 * `modeltape/runtime`: the journaled agent runtime. Every model call, tool call and clock read is an
 * effect written to a journal, and replay reads them back (see docs/runtime.md).
 */
export { ModeltapeError, type ErrorCode } from '../core/internal.js';
export { Runtime, type RuntimeOptions } from './runtime.js';
export { DEFAULT_MAX_TOKENS, type Agent } from './agent.js';
export { REPLAY_MODES, type RunOutcome, type EffectSummary, type ReplayMode } from './run-outcome.js';
export { RUNTIME_POINTS, type RuntimePoint, type PointDetail } from './runtime-points.js';
export {
  ForwardingJournalStore,
  EFFECT_KINDS,
  RUN_STATUSES,
  TERMINAL_STATUSES,
  type JournalStore,
  type JournalRecord,
  type StoredRecord,
  type JournalRecordType,
  type AppendOutcome,
  type RunRecord,
  type RunStatus,
  type Lease,
  type ApprovalRecord,
  type EffectKind,
  type Json,
} from './journal-store.js';
export { SqliteJournalStore, RunExistsError, type SqliteJournalStoreOptions } from './sqlite-journal-store.js';
export { PostgresJournalStore, POSTGRES_JOURNAL_SCHEMA_VERSION, type PostgresJournalStoreOptions } from './postgres-journal-store.js';
export { PostgresDriverMissingError, PG_VERSION, type PgPool, type PgClient, type PgResult } from './pg-driver.js';
export { SQLITE_DRIVERS, SqliteDriverMissingError, type SqliteDriverName } from './sqlite-driver.js';
export {
  Faulty,
  FaultSchedule,
  FailBeforeCommit,
  CommittedThenLost,
  CrashAtWrite,
  DiskFull,
  IoError,
  Latency,
  StoreFaultError,
  SimulatedCrash,
  type Fault,
  type InjectedFault,
  type StoreWrite,
} from './faulty.js';
export {
  NondeterminismError,
  RunLeasedError,
  LeaseLostError,
  RunNotFoundError,
  JournalWriteError,
  JournalStorageError,
  JournalFileError,
  JOURNAL_STORAGE_PROBLEMS,
  JOURNAL_FILE_PROBLEMS,
  ModelCallError,
  RecordedFailure,
  type EffectRequest,
  type JournalStorageProblem,
  type JournalFileProblem,
} from './errors.js';
export { JOURNAL_SCHEMA_VERSION } from './journal-file.js';
export { parseToolArguments, type ParsedArguments } from '../providers/internal.js';
export { ToolBox, SIDE_EFFECT_CLASSES, type Tool, type ToolContext, type SideEffectClass, type Reconciliation, type Acceptance } from './tool-box.js';
export { checkDecision } from './check-decision.js';
export { allowAll, POLICY_OUTCOMES, type Policy, type PolicyDecision, type PolicyRequest, type RunView } from './policy.js';
export {
  MODEL_APIS,
  type ModelApi,
  type ModelRequest,
  type ProviderConnection,
  type ModelAnswer,
  type ModelToolCall,
  type Turn,
  type OfferedTool,
} from './model-providers.js';
export { systemClock, ulidIds, steppingClock, sequentialIds, isUlid, type Clock, type IdSource } from './ids.js';
export { assertReplayWasNotBackstopped, BackstopAssertionError } from './assert-replay-was-not-backstopped.js';
export {
  checkJournalStore,
  JournalStoreConformanceError,
  type JournalStoreFactory,
  type JournalStoreReport,
  type JournalStoreCheck,
} from './check-journal-store.js';
