import type { ExecutionState } from './execution-state.js';
import type { ApprovalRecord, Json } from './journal-store.js';

/** What an operator is asked to approve: one effect, under one approval id. */
export interface ApprovalRequest {
  approvalId: string;
  /** The key of the effect it decides. */
  key: string;
  kind: string;
  reason: string;
  request: Json;
}

/** The approval for an effect, requested now if it was not yet (never written in strict replay). */
export async function operatorApproval(state: ExecutionState, { approvalId, key, kind, reason, request }: ApprovalRequest): Promise<ApprovalRecord> {
  const existing = (await state.store.approvals(state.runId)).find((approval) => approval.approvalId === approvalId);
  if (existing !== undefined) return existing;
  const approval: ApprovalRecord = {
    approvalId,
    runId: state.runId,
    effectKey: key,
    kind,
    reason,
    request,
    decision: 'pending',
    createdAt: state.setup.clock(),
    decidedAt: null,
  };
  if (state.strict) return approval;
  return state.journal.write(`approval ${approvalId}`, () => state.store.requestApproval(approval));
}
