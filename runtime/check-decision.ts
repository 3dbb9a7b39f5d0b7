import type { Json } from './journal-store.js';
import type { PolicyDecision } from './policy.js';

/**
 * Whether a policy's answer is one the runtime acts on: `allow`; `deny` with a reason;
 * `require_approval` with a kind of the policy's own (not `interrupted_side_effect`) and a reason.
 * Gives the answer as the journal keeps it (a JSON round trip: an `undefined` field is no field).
 */
export function checkDecision(decision: unknown): { ok: true; decision: PolicyDecision } | { ok: false; reason: string } {
  try {
    return { ok: true, decision: checkedDecision(decision) as unknown as PolicyDecision };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** A policy's answer as the journal keeps it, or an error saying what is wrong with it. */
export function checkedDecision(decision: unknown): Json {
  const normalized =
    decision === undefined || decision === null || typeof decision !== 'object' ? undefined : (JSON.parse(JSON.stringify(decision)) as Record<string, unknown>);
  const outcome = normalized?.outcome;
  const text = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';
  const valid =
    normalized !== undefined &&
    typeof normalized === 'object' &&
    (outcome === 'allow' ||
      (outcome === 'deny' && text(normalized.reason)) ||
      (outcome === 'require_approval' && text(normalized.kind) && text(normalized.reason)));
  if (!valid) throw new Error(`it answered ${JSON.stringify(decision) ?? 'undefined'}, which is not a decision`);
  if (outcome === 'require_approval' && normalized.kind === 'interrupted_side_effect')
    throw new Error('it asked for an approval of kind interrupted_side_effect, which the runtime keeps for calls it found interrupted: use a kind of your own');
  return normalized as Json;
}
