import { type Difference, diffJson, formatDifferences, ModeltapeError } from '../core/internal.js';
import { checkDecision, type JournalStore, type Json, type Policy, type PolicyDecision, type PolicyRequest, type RunView } from '../runtime/internal.js';

/** One journaled policy evaluation, evaluated again. */
export interface RecheckedEvaluation {
  key: string;
  step: number;
  tool: string;
  recorded: PolicyDecision;
  /** What the policy answers now, on the inputs the journal holds (or what it threw). */
  now: PolicyDecision | { threw: string };
  differences: Difference[];
}

export class RecheckError extends ModeltapeError {
  readonly evaluations: RecheckedEvaluation[];
  constructor(message: string, evaluations: RecheckedEvaluation[]) {
    super('recheck_failed', message);
    this.evaluations = evaluations;
  }
}

/** Evaluates `policy` again on every evaluation a run journaled, with the inputs it saw then. */
export async function recheckEvaluations(store: JournalStore, runId: string, policy: Policy): Promise<RecheckedEvaluation[]> {
  const [run, records] = await Promise.all([store.getRun(runId), store.read(runId)]);
  const ends = new Map(records.filter((record) => record.type === 'complete').map((record) => [record.effectKey, record]));
  // The view's earlier calls: the run's top-level tool starts, in order.
  const calls = records
    .filter((record) => record.type === 'start' && record.effectKey.endsWith('.tool') && !record.effectKey.includes('/'))
    .map((record) => {
      const { tool, args } = record.data as { tool: string; args: Json };
      return { tool, args };
    });
  const evaluations: RecheckedEvaluation[] = [];
  for (const start of records) {
    if (start.type !== 'start' || !start.effectKey.endsWith('.policy')) continue;
    const end = ends.get(start.effectKey);
    if (end === undefined) continue; // an evaluation a crash interrupted decided nothing
    const { request, step, previousCalls } = start.data as unknown as { request: PolicyRequest; step: number; previousCalls: number };
    const view: RunView = { runId, agent: run?.agent ?? '', step, previousCalls: calls.slice(0, previousCalls) };
    let now: PolicyDecision | { threw: string };
    try {
      // As the runtime keeps an answer: a JSON round trip, checked.
      const checked = checkDecision(policy(structuredClone(request), view));
      now = checked.ok ? checked.decision : { threw: checked.reason };
    } catch (error) {
      now = { threw: `${(error as Error)?.name}: ${(error as Error)?.message}` };
    }
    evaluations.push({
      key: start.effectKey,
      step,
      tool: request.tool,
      recorded: end.data as unknown as PolicyDecision,
      now,
      differences: diffJson(end.data, now as unknown as Json),
    });
  }
  return evaluations;
}

function describe(evaluation: RecheckedEvaluation): string {
  // In the diff, "recorded" is the journaled decision and "sent" what the policy answers now.
  const lines = formatDifferences(evaluation.differences).map(
    (line) =>
      `    ${line
        .replace(/not recorded, sent /, 'not journaled, now ')
        .replace(/, not sent$/, ', now absent')
        .replace(/, sent nothing/, ', now absent')
        .replace(/: recorded /, ': journaled ')
        .replace(/ sent /, ' now ')}`,
  );
  return `step ${evaluation.step}, ${evaluation.tool} (${evaluation.key}):\n${lines.join('\n')}`;
}

/**
 * Fails on any journaled policy evaluation the policy now decides otherwise, and when the run
 * journaled none (nothing was re-checked). Returns the evaluations it checked.
 */
export async function recheck(store: JournalStore, runId: string, policy: Policy): Promise<RecheckedEvaluation[]> {
  const evaluations = await recheckEvaluations(store, runId, policy);
  if (evaluations.length === 0) throw new RecheckError(`Run ${runId} journaled no policy evaluation, so nothing was re-checked.`, evaluations);
  const differing = evaluations.filter((evaluation) => evaluation.differences.length > 0);
  if (differing.length > 0) {
    throw new RecheckError(
      `The policy now decides ${differing.length} of ${evaluations.length} evaluations of run ${runId} otherwise:\n${differing.map((evaluation) => `  ${describe(evaluation)}`).join('\n')}`,
      evaluations,
    );
  }
  return evaluations;
}

/**
 * Fails unless the policy now decides otherwise exactly the evaluations at `steps` (a change meant
 * to alter those decisions, and no other), and when nothing was re-checked.
 */
export async function recheckDiffers(store: JournalStore, runId: string, policy: Policy, steps: readonly number[]): Promise<RecheckedEvaluation[]> {
  const evaluations = await recheckEvaluations(store, runId, policy);
  if (evaluations.length === 0) throw new RecheckError(`Run ${runId} journaled no policy evaluation, so nothing was re-checked.`, evaluations);
  const wanted = new Set(steps);
  const unexpected = evaluations.filter((evaluation) => evaluation.differences.length > 0 && !wanted.has(evaluation.step));
  const unchanged = [...wanted].filter((step) => !evaluations.some((evaluation) => evaluation.step === step && evaluation.differences.length > 0));
  if (unexpected.length > 0 || unchanged.length > 0) {
    const lines: string[] = [];
    if (unchanged.length > 0)
      lines.push(
        `  expected to differ, and did not: step${unchanged.length === 1 ? '' : 's'} ${unchanged.join(', ')}${unchanged.some((step) => !evaluations.some((evaluation) => evaluation.step === step)) ? ' (some had no evaluation at all)' : ''}`,
      );
    for (const evaluation of unexpected) lines.push(`  differs, and was not expected to: ${describe(evaluation)}`);
    throw new RecheckError(
      `The policy's changes to run ${runId} are not the ones expected (steps ${[...wanted].join(', ') || 'none'}):\n${lines.join('\n')}`,
      evaluations,
    );
  }
  return evaluations;
}
