import type { Json } from './journal-store.js';
import type { SideEffectClass } from './tool-box.js';

/** A tool call the policy is asked about (its arguments already accepted). */
export interface PolicyRequest {
  tool: string;
  args: Json;
  sideEffect: SideEffectClass;
}

/** What the policy may know of the run: enough to decide, nothing it could change. */
export interface RunView {
  runId: string;
  agent: string;
  step: number;
  /** Tool calls the run made before this one, in order. */
  previousCalls: ReadonlyArray<{ tool: string; args: Json }>;
}

/** `rule` names the rule that decided (a refusal should always name one). */
export type PolicyDecision =
  | { outcome: 'allow'; reason?: string; rule?: string }
  | { outcome: 'deny'; reason: string; rule?: string }
  | { outcome: 'require_approval'; kind: string; reason: string; rule?: string };

/** A pure function of the request and the view: the same question always gets the same answer. */
export type Policy = (request: PolicyRequest, view: RunView) => PolicyDecision;

export const POLICY_OUTCOMES: readonly PolicyDecision['outcome'][] = ['allow', 'deny', 'require_approval'];

/** Allows every call. */
export const allowAll: Policy = () => ({ outcome: 'allow' });
