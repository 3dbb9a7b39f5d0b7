import type { ApprovalRecord } from './journal-store.js';

/** The run was cancelled through its signal (or its journal ends where a cancellation stopped it). */
export class Cancelled extends Error {}

/** The run cannot go on: it ends `failed` with this code and message. */
export class RunFailed extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** The run stops here until an operator decides. */
export class Pause extends Error {
  readonly approval: ApprovalRecord;
  constructor(approval: ApprovalRecord) {
    super(`waiting for approval ${approval.approvalId}`);
    this.approval = approval;
  }
}
