import type { Agent } from './agent.js';
import { checkedDecision } from './check-decision.js';
import { RecordedFailure } from './errors.js';
import type { ExecutionState } from './execution-state.js';
import type { Json } from './journal-store.js';
import { operatorApproval } from './operator-approval.js';
import { nextKey, peekKey, performEffect } from './perform-effect.js';
import type { Policy, PolicyDecision, PolicyRequest, RunView } from './policy.js';
import { Cancelled, Pause, RunFailed } from './run-stops.js';
import { runTool } from './run-tool.js';
import type { Tool, ToolContext } from './tool-box.js';

/** One call the model asked for, as the loop hands it over. */
export interface RequestedCall {
  name: string;
  args: Json;
  callId: string;
}

/** What a tool call gives the conversation, and whether the tool ran (a refused, denied or rejected call did not). */
export interface ToolCallResult {
  content: string;
  isError: boolean;
  ran: boolean;
}

/**
 * One tool call of the model's: accepted by the tool box, decided by the policy (journaled, and
 * re-evaluated in a replay), approved by an operator when the policy asks, then performed as an
 * effect, with its retries.
 */
export async function toolCall(
  state: ExecutionState,
  agent: Agent,
  { name, args, callId }: RequestedCall,
  previousCalls: ReadonlyArray<{ tool: string; args: Json }>,
  policy: Policy,
): Promise<ToolCallResult> {
  const { setup, runId } = state;
  const acceptance = setup.tools.accept(name, args, agent.tools ?? []);
  if (!acceptance.accepted) return { content: JSON.stringify({ error: `refused: ${acceptance.reason}` }), isError: true, ran: false };
  const tool = acceptance.tool;
  // The evaluation is journaled with the inputs it saw (keyed like the call it decides), so a
  // replay re-evaluates it and sees when the policy now answers otherwise, and recheck() can.
  // The view's earlier calls are the run's earlier tool starts, so the journal holds only their
  // count: each evaluation costs the same however long the run (recheck rebuilds the list).
  const request: PolicyRequest = { tool: name, args, sideEffect: tool.sideEffect };
  const view: RunView = Object.freeze({ runId, agent: agent.name, step: state.step, previousCalls: Object.freeze(previousCalls.slice()) });
  const inputs: Json = { request: request as unknown as Json, step: state.step, previousCalls: previousCalls.length };
  let decision: PolicyDecision;
  try {
    // Normalized as the journal stores it (an `undefined` field is no field), and checked: a
    // policy that answers something else fails the run rather than letting the call through.
    decision = (await performEffect(state, 'policy', inputs, async () => checkedDecision(policy(structuredClone(request), view)), {
      advance: false,
    })) as unknown as PolicyDecision;
  } catch (error) {
    if (!(error instanceof RecordedFailure)) throw error;
    throw new RunFailed(
      'policy_failed',
      `The policy failed on ${name}(${JSON.stringify(args)}) at step ${state.step}: ${error.message}. A policy must answer every request with allow, deny (with a reason) or require_approval (with a kind and a reason).`,
    );
  }
  // A call the policy stops still takes its place: the next call of the step gets the next key.
  const skip = (content: string): ToolCallResult => {
    nextKey(state, 'tool');
    return { content, isError: true, ran: false };
  };
  if (decision.outcome === 'deny') return skip(JSON.stringify({ error: `denied by policy${decision.rule ? ` (${decision.rule})` : ''}: ${decision.reason}` }));
  if (decision.outcome === 'require_approval') {
    const key = peekKey(state, 'tool');
    const approval = await operatorApproval(state, {
      approvalId: `${runId}/${key}/${decision.kind}`,
      key,
      kind: decision.kind,
      reason: decision.reason,
      request: { tool: name, args, callId },
    });
    if (approval.decision === 'pending') {
      // A run cancelled while it waited ends there in a strict replay too.
      if (state.strict && setup.run.status === 'cancelled') throw new Cancelled(((setup.run.result ?? {}) as { message?: string }).message ?? 'cancelled');
      throw new Pause(approval);
    }
    if (approval.decision === 'rejected') return skip(JSON.stringify({ error: `rejected by the operator (${decision.kind}): ${decision.reason}` }));
  }
  await state.point('AfterAllowed', { key: peekKey(state, 'tool'), tool: name, live: state.live });
  try {
    const result = await performEffect(state, 'tool', { tool: name, args, callId }, (context) => runWithRetries(state, tool, args, context), { tool });
    return { content: JSON.stringify(result), isError: false, ran: true };
  } catch (failure) {
    if (!(failure instanceof RecordedFailure)) throw failure;
    return { content: JSON.stringify({ error: failure.message }), isError: true, ran: true };
  }
}

/** Runs a tool, again after a timeout (or a retryable error) while its retries and the run's budget last. */
async function runWithRetries(state: ExecutionState, tool: Tool, args: Json, context: ToolContext): Promise<Json> {
  const key = context.operationId.slice(state.runId.length + 1);
  for (let attempt = 1; ; attempt++) {
    state.attempts.set(key, attempt);
    try {
      return await runTool(tool, args, { ...context, attempt });
    } catch (error) {
      const retryable = (error as Error)?.name === 'ToolTimeoutError' || (error as { retryable?: unknown })?.retryable === true;
      if (!retryable || attempt > (tool.retries ?? 0) || state.retriesUsed >= state.setup.retryBudget) throw error;
      state.retriesUsed++;
    }
  }
}
