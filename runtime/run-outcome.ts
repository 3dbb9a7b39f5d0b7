import type { ApprovalRecord, EffectKind, Json, RunStatus } from './journal-store.js';

/** How a run is read back: `strict` performs nothing, `resume` continues it live. */
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
