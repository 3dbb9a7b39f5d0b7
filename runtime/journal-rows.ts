// The journal's rows as both SQL stores keep them (SQLite and PostgreSQL share the tables' shape):
// the values a row is written with, and the record it reads back as. JSON values are kept as
// their text, so they read back exactly.
import type { ApprovalRecord, Json, RunRecord, RunStatus, StoredRecord } from './journal-store.js';

export interface RunRow {
  run_id: string;
  agent: string;
  input: string;
  status: string;
  result: string;
  created_at: number;
  updated_at: number;
}

export interface RecordRow {
  id: string;
  run_id: string;
  position: number;
  effect_key: string;
  type: string;
  data: string;
  at: number;
}

export interface ApprovalRow {
  approval_id: string;
  run_id: string;
  effect_key: string;
  kind: string;
  reason: string;
  request: string;
  decision: string;
  created_at: number;
  decided_at: number | null;
}

/** A run's values in column order: run_id, agent, input, status, result, created_at, updated_at. */
export function runValues(run: RunRecord): unknown[] {
  return [run.runId, run.agent, JSON.stringify(run.input), run.status, JSON.stringify(run.result), run.createdAt, run.updatedAt];
}

export function runOf(row: RunRow): RunRecord {
  return {
    runId: row.run_id,
    agent: row.agent,
    input: JSON.parse(row.input) as Json,
    status: row.status as RunStatus,
    result: JSON.parse(row.result) as Json,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function recordOf(row: RecordRow): StoredRecord {
  return {
    id: row.id,
    runId: row.run_id,
    position: row.position,
    effectKey: row.effect_key,
    type: row.type as StoredRecord['type'],
    data: JSON.parse(row.data) as Json,
    at: row.at,
  };
}

/** An approval's values in column order: approval_id, run_id, effect_key, kind, reason, request, decision, created_at, decided_at. */
export function approvalValues(approval: ApprovalRecord): unknown[] {
  return [
    approval.approvalId,
    approval.runId,
    approval.effectKey,
    approval.kind,
    approval.reason,
    JSON.stringify(approval.request),
    approval.decision,
    approval.createdAt,
    approval.decidedAt,
  ];
}

export function approvalOf(row: ApprovalRow): ApprovalRecord {
  return {
    approvalId: row.approval_id,
    runId: row.run_id,
    effectKey: row.effect_key,
    kind: row.kind,
    reason: row.reason,
    request: JSON.parse(row.request) as Json,
    decision: row.decision as ApprovalRecord['decision'],
    createdAt: row.created_at,
    decidedAt: row.decided_at,
  };
}
