// The verdict on one recorded answer against the one the upstream gives today: what a program
// acts on (status, finish, refusal, tool calls, structured output) decides it; text alone never
// makes more than `equivalent`, and ids, timestamps and usage never count.
import { diffJson, type Difference } from '../core/internal.js';
import type { AnswerBehaviour } from './answer-behaviour.js';

/** From no change to a behaviour the code relied on being gone. */
export const VERDICTS = ['identical', 'equivalent', 'changed', 'regression'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** A verdict with its reasons, each naming what moved (`.toolCalls[0].args.city: "Paris" → "Lyon"`). */
export interface Comparison {
  verdict: Verdict;
  reasons: string[];
}

/**
 * Compares the fresh answer with the recorded one:
 * - `regression`: an error status, the provider's failure, a new refusal, a finish that changed,
 *   a tool call that became text or another tool (or went missing), structured output no longer
 *   valid against the request's schema;
 * - `changed`: the same kind of answer with other values a program may act on: a tool argument
 *   (its value, or its keys), a value in structured output;
 * - `equivalent`: only the text differs;
 * - `identical`: nothing above differs.
 */
export function compareAnswers(recorded: AnswerBehaviour, fresh: AnswerBehaviour): Comparison {
  const regression: string[] = [];
  const changed: string[] = [];
  const equivalent: string[] = [];
  const ok = (status: number): boolean => status >= 200 && status < 300;
  if (recorded.status !== fresh.status) {
    const why = fresh.status === 404 ? ' (the model or endpoint no longer exists)' : '';
    (ok(fresh.status) ? changed : regression).push(
      `.status: ${recorded.status} → ${fresh.status}${why}${fresh.errorMessage === undefined ? '' : `: ${fresh.errorMessage}`}`,
    );
  }
  if (!ok(fresh.status)) return { verdict: 'regression', reasons: regression };
  if (fresh.failed && !recorded.failed) regression.push('.failed: the answer ended in the provider’s error event');
  if (fresh.refused && !recorded.refused) regression.push('.refused: the model now refuses');
  if (recorded.finish !== fresh.finish) regression.push(`.finish: ${show(recorded.rawFinish ?? recorded.finish)} → ${show(fresh.rawFinish ?? fresh.finish)}`);
  compareToolCalls(recorded, fresh, regression, changed);
  compareStructured(recorded, fresh, regression, changed);
  if (recorded.text !== fresh.text) {
    const sameValue = recorded.structured !== undefined && fresh.structured !== undefined && sameJson(recorded, fresh);
    equivalent.push(
      sameValue ? '.text: the same structured output, written differently' : `.text: ${show(recorded.text ?? undefined)} → ${show(fresh.text ?? undefined)}`,
    );
  }
  if (regression.length > 0) return { verdict: 'regression', reasons: [...regression, ...changed, ...equivalent] };
  if (changed.length > 0) return { verdict: 'changed', reasons: [...changed, ...equivalent] };
  if (equivalent.length > 0) return { verdict: 'equivalent', reasons: equivalent };
  return { verdict: 'identical', reasons: [] };
}

function compareToolCalls(recorded: AnswerBehaviour, fresh: AnswerBehaviour, regression: string[], changed: string[]): void {
  const before = recorded.toolCalls;
  const after = fresh.toolCalls;
  if (before.length > 0 && after.length === 0) {
    regression.push(`.toolCalls: ${before.map((call) => call.name).join(', ')} → ${fresh.text === null ? 'no tool call' : 'text'}`);
    return;
  }
  if (before.length === 0 && after.length > 0) {
    regression.push(`.toolCalls: text → ${after.map((call) => call.name).join(', ')}`);
    return;
  }
  if (before.length !== after.length) regression.push(`.toolCalls: ${before.length} calls → ${after.length}`);
  for (let index = 0; index < Math.min(before.length, after.length); index++) {
    const then = before[index]!;
    const now = after[index]!;
    if (then.name !== now.name) {
      regression.push(`.toolCalls[${index}].name: ${show(then.name)} → ${show(now.name)}`);
      continue;
    }
    if (now.argumentsError !== undefined && then.argumentsError === undefined) {
      regression.push(`.toolCalls[${index}].args: no longer valid JSON (${now.argumentsError})`);
      continue;
    }
    for (const difference of diffJson(then.args, now.args, { stopAfter: 20 })) changed.push(describe(`.toolCalls[${index}].args`, difference));
  }
}

function compareStructured(recorded: AnswerBehaviour, fresh: AnswerBehaviour, regression: string[], changed: string[]): void {
  const before = recorded.structured;
  const after = fresh.structured;
  if (after === undefined || before === undefined) return;
  if (after.problems.length > 0 && before.problems.length === 0) {
    regression.push(...after.problems.slice(0, 5).map((problem) => `.structured: no longer valid against the request's schema: ${problem}`));
    return;
  }
  for (const difference of diffJson(before.value, after.value, { stopAfter: 20 })) changed.push(describe('.structured', difference));
}

function sameJson(recorded: AnswerBehaviour, fresh: AnswerBehaviour): boolean {
  return diffJson(recorded.structured?.value, fresh.structured?.value, { stopAfter: 1 }).length === 0;
}

function describe(prefix: string, difference: Difference): string {
  const path = `${prefix}${difference.path}`;
  if (difference.change === 'added') return `${path}: added ${show(difference.sent)}`;
  if (difference.change === 'removed') return `${path}: removed (was ${show(difference.recorded)})`;
  return `${path}: ${show(difference.recorded)} → ${show(difference.sent)}`;
}

function show(value: unknown): string {
  if (value === undefined) return 'none';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
