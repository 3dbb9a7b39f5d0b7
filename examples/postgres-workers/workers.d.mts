import type { RunRecord } from 'modeltape/runtime';

export interface FleetResult {
  runs: RunRecord[];
  /** Sends that happened (the outbox's lines). */
  sends: number;
  /** Approvals the operator gave. */
  approved: number;
  /** The workers killed with SIGKILL, in order. */
  killed: string[];
  /** Runs more than one worker drove: taken over from a killed one. */
  takenOver: number;
  /** Worker processes started, the replacements included. */
  workers: number;
  elapsedMs: number;
  /** Every broken invariant, numbered as the file's header lists them; empty when all held. */
  violations: string[];
}

export function runFleet(options: {
  url: string;
  schema: string;
  runs?: number;
  workers?: number;
  kills?: number;
  seed?: number;
  timeoutMs?: number;
  log?: (line: string) => void;
}): Promise<FleetResult>;
