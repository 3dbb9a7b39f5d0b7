import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeProvider, type AskedTurn } from '../fake-provider/internal.js';
import { ModeltapeError } from '../core/internal.js';
import {
  RunLeasedError,
  Runtime,
  RUNTIME_POINTS,
  SimulatedCrash,
  SqliteJournalStore,
  sequentialIds,
  steppingClock,
  type Agent,
  type ApprovalRecord,
  type Clock,
  type IdSource,
  type Json,
  type JournalStore,
  type Policy,
  type PointDetail,
  type ProviderConnection,
  type RunOutcome,
  type RunRecord,
  type RuntimePoint,
  type StoredRecord,
  type Tool,
  type ToolContext,
} from '../runtime/internal.js';

/** Where a crash can be placed: the runtime's named points. */
export type CrashPoint = RuntimePoint;
export const CRASH_POINTS: readonly CrashPoint[] = RUNTIME_POINTS;

/** A crash at the `occurrence`-th time the loop passes `point` live (for `tool` only, when given), counted across every runtime of the scenario. */
export interface Crash {
  point: CrashPoint;
  tool?: string;
  /** @default 1 */
  occurrence?: number;
}

/** The points that concern one tool call, where a crash can name the tool. */
const TOOL_POINTS: readonly CrashPoint[] = ['AfterAllowed', 'AfterToolStarted', 'AfterToolEffect', 'AfterToolFinished', 'AfterInterrupted'];

/** A crash at a point: `crashAt('AfterToolEffect', { tool: 'send' })`. */
export function crashAt(point: CrashPoint, options: { tool?: string; occurrence?: number } = {}): Crash {
  if (!CRASH_POINTS.includes(point))
    throw new ModeltapeError('invalid_crash_point', `Invalid crash point "${String(point)}": expected one of ${CRASH_POINTS.join(', ')}.`);
  return { point, ...options };
}

/** What the operator answers to a pending approval. `leave` stops the scenario with the run waiting. */
export type OperatorAnswer = 'approve' | 'reject' | 'leave';
export const Approve: OperatorAnswer = 'approve';
export const Reject: OperatorAnswer = 'reject';
export const Leave: OperatorAnswer = 'leave';

export interface Scenario {
  tools: readonly Tool[];
  /** @default allow everything */
  policy?: Policy;
  agent: Agent;
  /**
   * The model the agent talks to: a FakeProvider (script it with rules, so a turn asked again
   * after a crash gets the same answer, as from a deterministic model) or a provider connection
   * (e.g. a replayer's `fetch`).
   */
  model: FakeProvider | ProviderConnection;
  /** The run's input. */
  goal: Json;
  /** `maxSteps: 0` (or none) means the runtime's default. */
  limits?: { maxSteps?: number };
  /** Reconcile hooks by tool name, added to those tools. */
  reconcile?: Record<string, NonNullable<Tool['reconcile']>>;
  /** Answers each pending approval. @default approve */
  operator?: (approval: ApprovalRecord) => OperatorAnswer | Promise<OperatorAnswer>;
  /** @default a clock from 2026-01-01T00:00:00Z moving 1 ms a reading (waiting out a lease moves it further, never sleeps) */
  now?: Clock;
  /** @default `scenario-1`, `scenario-2`, … */
  newId?: IdSource;
  /** @default a temp file the harness owns (removed after the result is read) */
  database?: string;
  /**
   * Opens a handle on the scenario's journal, when it is not a SQLite file: each runtime the
   * harness starts opens its own, and so does the final read (e.g. a PostgreSQL journal in a schema
   * of its own: `() => PostgresJournalStore.open({ connection, schema })`). The journal must be
   * empty when the scenario starts. Not with `database`.
   */
  journal?: () => JournalStore | Promise<JournalStore>;
  /** @default 50 */
  leaseTtlMs?: number;
  /**
   * Wraps each store handle the harness opens (a new one per runtime): to observe the journal
   * (a ForwardingJournalStore), or to inject store faults (`(store) => new Faulty(store, seed)`).
   */
  store?: (store: JournalStore) => JournalStore;
  /**
   * The runtime's lease heartbeat. The harness moves the scenario's clock itself (a crash's lease is
   * waited out by moving it), and a wall-clock timer reading that clock would make two runs of one
   * scenario differ, so by default it is an hour: set it to test the heartbeat itself.
   * @default 3600000
   */
  heartbeatMs?: number;
}

/** One invocation a tool received. */
export interface ScenarioCall {
  tool: string;
  operationId: string;
  args: Json;
  /** The runtime (lease-holder name) that invoked it. */
  runtime: string;
  /** Whether its end reached the journal: false for the one a crash stopped after. */
  returned: boolean;
  /** Whether this execution (past the first) was under an approval of its own: an operator's approval to run it again, consumed for it. */
  approvedAtTheTime: boolean;
  /** How many `interrupted_side_effect` approvals of this call were consumed when it was invoked. */
  approvalsConsumed: number;
  /** How many times its `reconcile` had answered `not_applied` when it was invoked. */
  notApplied: number;
  /** Whether the tool's own code returned (its effect happened), whatever became of the journal. */
  effectDone: boolean;
  /** Retries within this execution (after a timeout, under the tool's `retries`): part of the same execution. */
  retries: number;
}

export interface ScenarioRender {
  step: number;
  runtime: string;
  /** The request body exactly as sent. */
  body: string;
}

export interface ScenarioCrash {
  point: CrashPoint;
  runtime: string;
  step: number;
  key?: string;
  tool?: string;
}

export interface ScenarioResult {
  runId: string | undefined;
  run: RunRecord | undefined;
  /** The journal grouped by step. */
  steps: Array<{ step: number; records: StoredRecord[] }>;
  journal: StoredRecord[];
  approvals: ApprovalRecord[];
  /** What happened, in order: every live point, crash, refusal, resume, pause and operator answer. */
  events: string[];
  calls: ScenarioCall[];
  /** What the agent was handed at every decision (the FakeProvider's `asked()`, or the raw request bodies). */
  inputs: Array<AskedTurn | Json>;
  /** Every model request as sent, byte for byte, with the step it decided and the runtime that sent it. */
  renders: ScenarioRender[];
  crashes: ScenarioCrash[];
  /** How many times a new runtime resumed the run. */
  resumes: number;
  /** Every broken invariant, numbered as the testkit documents them. Empty when all held. */
  violations: string[];
  /** Throws {@link ScenarioViolationError} listing the violations, if any. */
  assertHolds(): void;
}

export class ScenarioViolationError extends ModeltapeError {
  readonly violations: string[];
  constructor(runId: string | undefined, violations: string[]) {
    super(
      'scenario_violation',
      `The scenario (run ${runId ?? 'never created'}) broke ${violations.length} invariant${violations.length === 1 ? '' : 's'}:\n${violations.map((violation) => `  ✗ ${violation}`).join('\n')}`,
    );
    this.violations = violations;
  }
}

const MAX_RESUMES = 100;

/**
 * Runs a scenario to its end, crashing the loop at each of `crashes` in turn. A crash is a real
 * one as far as the runtime can tell: the loop is stopped where it stands, its store handle is
 * closed, its heartbeat stops and its lease is left behind. After a crash, and after every pause,
 * the journal is opened afresh and a new runtime resumes the run, waiting out the lease its
 * refusal names. When the run ends (terminal, or waiting on an approval the operator left), it is
 * read from a fresh open and checked against the invariants:
 *
 * 1. A step never executes twice on its own: every execution past the first is under an approval.
 * 2. An approved request executes at most once, and an approved step is not ignored.
 * 3. Every recorded tool start is followed by its end or by the step's interruption.
 * 4. No tool was reached more often than the journal says.
 * 5. Nothing is left in flight: the run is not running, nor interrupted (stopped by a store error and
 *    never resumed; with its lease still held, it counts as left running), and every start has its
 *    end or waits on an approval.
 * 6. No lease is left.
 * 7. Every crash was reached.
 */
export async function runScenario(scenario: Scenario, ...crashes: Crash[]): Promise<ScenarioResult> {
  const toolNames = scenario.tools.map((tool) => tool.name);
  for (const crash of crashes) {
    if (crash.tool !== undefined && !toolNames.includes(crash.tool)) {
      throw new ModeltapeError(
        'invalid_crash',
        `crashAt('${crash.point}', { tool: '${crash.tool}' }): the scenario has no tool named "${crash.tool}" (tools: ${toolNames.join(', ') || 'none'}).`,
      );
    }
    if (crash.tool !== undefined && !TOOL_POINTS.includes(crash.point)) {
      throw new ModeltapeError(
        'invalid_crash',
        `crashAt('${crash.point}', { tool: '${crash.tool}' }): ${crash.point} is not about a tool call; a tool can be named only for ${TOOL_POINTS.join(', ')}.`,
      );
    }
  }
  for (const name of Object.keys(scenario.reconcile ?? {})) {
    if (!toolNames.includes(name))
      throw new ModeltapeError(
        'invalid_scenario',
        `scenario.reconcile names "${name}", which is not one of the scenario's tools (${toolNames.join(', ') || 'none'}).`,
      );
  }
  if (scenario.database !== undefined && scenario.journal !== undefined)
    throw new ModeltapeError('invalid_scenario', 'A scenario takes its journal as a SQLite file (database) or as an opener (journal), not both.');
  const ownedDir = scenario.database === undefined && scenario.journal === undefined ? mkdtempSync(join(tmpdir(), 'modeltape-scenario-')) : undefined;
  const path = scenario.database ?? (ownedDir === undefined ? undefined : join(ownedDir, 'journal.sqlite'));
  const openJournal = async (): Promise<JournalStore> => (scenario.journal ? scenario.journal() : SqliteJournalStore.open(path!));
  // Deterministic by default, so that two runs of one scenario record identically.
  const baseClock = scenario.now ?? steppingClock();
  let skew = 0;
  const clock: Clock = () => baseClock() + skew;
  const ids = scenario.newId ?? sequentialIds('scenario');
  const events: string[] = [];
  const calls: ScenarioCall[] = [];
  const reached: ScenarioCrash[] = [];
  const counts = crashes.map(() => 0);
  let armed = 0;
  let runId: string | undefined;
  let store: JournalStore | undefined;
  let runtimeCount = 0;
  const rawInputs: Json[] = [];
  const renders: ScenarioRender[] = [];
  let currentStep = 0;
  let currentOwner = '';

  const underlying = scenario.model instanceof FakeProvider ? scenario.model.fetch : (scenario.model.fetch ?? globalThis.fetch);
  const connection: ProviderConnection = {
    ...(scenario.model instanceof FakeProvider
      ? { api: scenario.agent.provider.startsWith('anthropic') ? 'anthropic-messages' : 'openai-chat' }
      : scenario.model),
    fetch: async (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      renders.push({ step: currentStep, runtime: currentOwner, body });
      if (!(scenario.model instanceof FakeProvider)) rawInputs.push(body ? (JSON.parse(body) as Json) : null);
      return underlying(input, init);
    },
  };

  // What each call's reconcile hook answered: `not_applied` lets it run once more.
  const verdicts = new Map<string, number>();
  const tools: Tool[] = scenario.tools.map((tool) => {
    const reconcile = scenario.reconcile?.[tool.name] ?? tool.reconcile;
    return {
      ...tool,
      ...(reconcile
        ? {
            reconcile: async (args: Json, context: ToolContext) => {
              const verdict = await reconcile(args, context);
              if (verdict.status === 'not_applied') verdicts.set(context.operationId, (verdicts.get(context.operationId) ?? 0) + 1);
              return verdict;
            },
          }
        : {}),
      run: async (args, context) => {
        if (context.attempt > 1) {
          // A retry is part of the execution it retries, not another one.
          const retried = calls.findLast((candidate) => candidate.operationId === context.operationId);
          if (retried !== undefined) retried.retries++;
          const result = await tool.run(args, context);
          if (retried !== undefined) retried.effectDone = true;
          return result;
        }
        const key = context.operationId.slice(context.runId.length + 1);
        const consumed = (await store!.approvals(context.runId)).filter(
          (approval) => approval.effectKey === key && approval.kind === 'interrupted_side_effect' && approval.decision === 'consumed',
        ).length;
        const notApplied = verdicts.get(context.operationId) ?? 0;
        const earlier = calls.filter((call) => call.operationId === context.operationId);
        const previous = earlier.at(-1);
        // Another execution is allowed by a new approval, or by reconcile's word that the last one
        // did not apply, which holds only if the last one's code did not in fact return.
        const byApproval = previous !== undefined && consumed > previous.approvalsConsumed;
        const byReconcile = previous !== undefined && notApplied > previous.notApplied && !previous.effectDone;
        const call: ScenarioCall = {
          tool: tool.name,
          operationId: context.operationId,
          args,
          runtime: `runtime-${runtimeCount}`,
          returned: false,
          approvedAtTheTime: byApproval || byReconcile,
          approvalsConsumed: consumed,
          notApplied,
          effectDone: false,
          retries: 0,
        };
        calls.push(call);
        const result = await tool.run(args, context);
        call.effectDone = true;
        return result;
      },
    };
  });

  // A crash parks the loop: the point never returns, and the harness walks away from that runtime.
  let park: () => void = () => undefined;
  const onPoint = (point: RuntimePoint, detail: PointDetail): void | Promise<void> => {
    runId ??= detail.runId;
    currentStep = detail.step;
    currentOwner = detail.owner;
    if (!detail.live) return;
    events.push(
      `${detail.owner} ${point}${detail.tool ? ` ${detail.tool}` : ''}${detail.key ? ` ${detail.key}` : detail.step >= 0 && point === 'AfterStepStarted' ? ` step ${detail.step}` : ''}`,
    );
    if (point === 'AfterToolFinished' && detail.key !== undefined) {
      const call = calls.findLast((candidate) => candidate.operationId === `${detail.runId}/${detail.key}`);
      if (call) call.returned = true;
    }
    const crash = crashes[armed];
    if (crash === undefined || crash.point !== point || (crash.tool !== undefined && crash.tool !== detail.tool)) return;
    counts[armed]!++;
    if (counts[armed]! < (crash.occurrence ?? 1)) return;
    armed++;
    reached.push({
      point,
      runtime: detail.owner,
      step: detail.step,
      ...(detail.key ? { key: detail.key } : {}),
      ...(detail.tool ? { tool: detail.tool } : {}),
    });
    events.push(`crash at ${point}${detail.tool ? ` ${detail.tool}` : ''}${detail.key ? ` ${detail.key}` : ''}`);
    park();
    return new Promise<void>(() => undefined);
  };

  const agent: Agent = { ...scenario.agent, ...(scenario.limits?.maxSteps ? { maxSteps: scenario.limits.maxSteps } : {}) };
  const newRuntime = async (): Promise<Runtime> => {
    runtimeCount++;
    const opened = await openJournal();
    store = scenario.store ? scenario.store(opened) : opened;
    return Runtime.build({
      store,
      providers: { [agent.provider]: connection },
      agents: [agent],
      tools,
      ...(scenario.policy ? { policy: scenario.policy } : {}),
      clock,
      ids,
      owner: `runtime-${runtimeCount}`,
      lease: { ttlMs: scenario.leaseTtlMs ?? 50, heartbeatMs: scenario.heartbeatMs ?? 3_600_000 },
      onPoint,
    });
  };
  const stop = async (): Promise<void> => {
    await store?.close();
    store = undefined;
  };

  let resumes = 0;
  let outcome: RunOutcome | undefined;
  try {
    /** The invocation's outcome, or undefined when it crashed (parked at a point, or a Faulty store's CrashAtWrite). */
    const drive = async (invocation: () => Promise<RunOutcome>): Promise<RunOutcome | undefined> => {
      const parked = new Promise<undefined>((resolve) => {
        park = () => resolve(undefined);
      });
      try {
        return await Promise.race([invocation(), parked]);
      } catch (error) {
        if (error instanceof SimulatedCrash) return undefined;
        throw error;
      }
    };
    let runtime = await newRuntime();
    outcome = await drive(() => runtime.run(agent, scenario.goal));
    if (outcome !== undefined) runId = outcome.runId;
    for (let round = 0; ; round++) {
      if (round > MAX_RESUMES)
        throw new ModeltapeError(
          'scenario_runaway',
          `The scenario did not settle after ${MAX_RESUMES} resumes. Events so far:\n${events.slice(-20).join('\n')}`,
        );
      if (outcome !== undefined && outcome.status !== 'waiting') break;
      if (outcome !== undefined) {
        events.push(
          `${runtime.owner} paused: waiting on ${outcome.pendingApprovals.map((approval) => `${approval.approvalId} (${approval.kind})`).join(', ')}`,
        );
        let left = false;
        for (const approval of (await store!.approvals(outcome.runId)).filter((candidate) => candidate.decision === 'pending')) {
          const answer = (await scenario.operator?.(approval)) ?? 'approve';
          events.push(`operator ${answer === 'leave' ? 'left' : answer === 'approve' ? 'approved' : 'rejected'} ${approval.approvalId}`);
          if (answer === 'approve') await runtime.approve(approval.approvalId);
          else if (answer === 'reject') await runtime.reject(approval.approvalId);
          else left = true;
        }
        if (left) break;
      }
      if (runId === undefined) break; // it crashed before the run existed
      // A pause is a stop as well; a crash leaves its handle behind: open afresh, in a new runtime.
      await stop();
      runtime = await newRuntime();
      outcome = undefined;
      for (;;) {
        try {
          const current = runtime;
          outcome = await drive(() => current.resume(runId!));
          resumes++;
          if (outcome !== undefined) events.push(`${runtime.owner} resumed: ${outcome.status}`);
          break;
        } catch (error) {
          if (!(error instanceof RunLeasedError)) throw error;
          events.push(`${runtime.owner} refused: leased to ${error.owner}; waiting ${Math.max(0, error.expiresAt - clock())} ms`);
          skew += Math.max(1, error.expiresAt - clock() + 1);
        }
      }
    }
    await stop();
    return await readResult(openJournal, runId, {
      events,
      calls,
      reached,
      crashes,
      resumes,
      renders,
      inputs: scenario.model instanceof FakeProvider ? scenario.model.asked() : rawInputs,
    });
  } finally {
    await stop();
    if (ownedDir !== undefined) rmSync(ownedDir, { recursive: true, force: true });
  }
}

async function readResult(
  openJournal: () => Promise<JournalStore>,
  runId: string | undefined,
  seen: {
    events: string[];
    calls: ScenarioCall[];
    reached: ScenarioCrash[];
    crashes: Crash[];
    resumes: number;
    renders: ScenarioRender[];
    inputs: Array<AskedTurn | Json>;
  },
): Promise<ScenarioResult> {
  const fresh = await openJournal();
  try {
    const run = runId === undefined ? undefined : await fresh.getRun(runId);
    const journal = runId === undefined ? [] : await fresh.read(runId);
    const approvals = runId === undefined ? [] : await fresh.approvals(runId);
    const lease = runId === undefined ? undefined : await fresh.getLease(runId);
    const violations = checkInvariants(runId, run, journal, approvals, lease !== undefined ? `${lease.owner} until ${lease.expiresAt}` : undefined, seen);
    const steps = new Map<number, StoredRecord[]>();
    for (const record of journal) {
      const step = Number(record.effectKey.split('.')[0]);
      steps.set(step, [...(steps.get(step) ?? []), record]);
    }
    return {
      runId,
      run,
      steps: [...steps].map(([step, records]) => ({ step, records })),
      journal,
      approvals,
      events: seen.events,
      calls: seen.calls,
      inputs: seen.inputs,
      renders: seen.renders,
      crashes: seen.reached,
      resumes: seen.resumes,
      violations,
      assertHolds(): void {
        if (violations.length > 0) throw new ScenarioViolationError(runId, violations);
      },
    };
  } finally {
    await fresh.close();
  }
}

function checkInvariants(
  runId: string | undefined,
  run: RunRecord | undefined,
  journal: readonly StoredRecord[],
  approvals: readonly ApprovalRecord[],
  lease: string | undefined,
  seen: { calls: ScenarioCall[]; reached: ScenarioCrash[]; crashes: Crash[] },
): string[] {
  const violations: string[] = [];
  const isTool = (key: string): boolean => key.endsWith('.tool') && !key.includes('/');
  const starts = new Map(journal.filter((record) => record.type === 'start' && isTool(record.effectKey)).map((record) => [record.effectKey, record]));
  const ends = new Map(journal.filter((record) => record.type !== 'start' && isTool(record.effectKey)).map((record) => [record.effectKey, record]));
  const interruptions = (key: string): ApprovalRecord[] =>
    approvals.filter((approval) => approval.effectKey === key && approval.kind === 'interrupted_side_effect');
  const interrupted = (key: string): ApprovalRecord | undefined => interruptions(key).at(-1);
  const consumed = (key: string): number => interruptions(key).filter((approval) => approval.decision === 'consumed').length;
  const byKey = new Map<string, ScenarioCall[]>();
  for (const call of seen.calls) {
    const key = runId !== undefined && call.operationId.startsWith(`${runId}/`) ? call.operationId.slice(runId.length + 1) : call.operationId;
    byKey.set(key, [...(byKey.get(key) ?? []), call]);
  }

  for (const [key, calls] of byKey) {
    const tool = calls[0]!.tool;
    // 1. Executions past the first are each under an approval (or a truthful reconcile verdict).
    calls.slice(1).forEach((call, index) => {
      if (!call.approvedAtTheTime) {
        const lied = call.notApplied > calls[index]!.notApplied;
        violations.push(
          `1. step ${key}: ${tool} executed again on its own (execution #${index + 2}, by ${call.runtime}) with no approval to run it again${lied ? ' (reconcile said not_applied, but the previous execution had returned)' : ''}`,
        );
      }
    });
    // 2. An approval lets it run at most once: two executions under the same count of consumed approvals share one.
    calls.slice(1).forEach((call, index) => {
      if (call.approvalsConsumed > 0 && call.approvalsConsumed === calls[index]!.approvalsConsumed && call.notApplied === calls[index]!.notApplied)
        violations.push(
          `2. step ${key}: ${tool} executed again (execution #${index + 2}, by ${call.runtime}) under an approval an earlier execution already used`,
        );
    });
    // 4. Never reached more often than the journal (and reconcile's verdicts) account for.
    const rerunsByReconcile = calls.at(-1)!.notApplied;
    const allowed = (starts.has(key) ? 1 : 0) + consumed(key) + rerunsByReconcile;
    if (calls.length > allowed)
      violations.push(
        `4. step ${key}: ${tool} was reached ${calls.length} times; the journal accounts for ${allowed} (${starts.has(key) ? 'a start' : 'no start'}${consumed(key) > 0 ? ` and ${consumed(key)} approved re-run${consumed(key) === 1 ? '' : 's'}` : ''}${rerunsByReconcile > 0 ? ` and ${rerunsByReconcile} re-run${rerunsByReconcile === 1 ? '' : 's'} reconcile allowed` : ''})`,
      );
  }
  // 2. …and an approval granted is not ignored: once the run is over, none is left approved and unused.
  if (run !== undefined && run.status !== 'waiting' && run.status !== 'running' && run.status !== 'interrupted') {
    for (const approval of approvals) {
      if (approval.decision !== 'approved') continue;
      const used = approval.kind === 'interrupted_side_effect' ? false : starts.has(approval.effectKey);
      if (!used)
        violations.push(
          `2. step ${approval.effectKey}: approval ${approval.approvalId} (${approval.kind}) was granted and the step never ran under it: the loop ignored an approved step`,
        );
    }
  }
  // 3. Every start is followed by its end, or by the step's interruption; and a tool does not
  //    start again before the previous start was closed (by an interruption the operator approved).
  for (const [key, start] of starts) {
    const end = ends.get(key);
    const interruption = interruptions(key)[0];
    const tool = (start.data as { tool?: string }).tool ?? 'a tool';
    if (end === undefined && interruption === undefined)
      violations.push(`3. step ${key}: ${tool} started (position ${start.position}) and has neither an end nor an interruption`);
    if (end !== undefined && end.position < start.position)
      violations.push(`3. step ${key}: ${tool}'s end (position ${end.position}) comes before its start (position ${start.position})`);
    if (interruption !== undefined && interruption.createdAt < start.at)
      violations.push(`3. step ${key}: ${tool}'s interruption (${interruption.approvalId}) was recorded before its start`);
  }
  for (const [key, calls] of byKey) {
    calls.slice(1).forEach((call, index) => {
      if (call.approvalsConsumed === 0 && call.notApplied === 0)
        violations.push(`3. step ${key}: ${call.tool} started again (execution #${index + 2}) before the previous start was closed by an interruption`);
    });
  }
  // 5. Nothing in flight.
  if (run !== undefined) {
    if (run.status === 'running') violations.push(`5. run ${run.runId} was left running`);
    // An interrupted run whose lease is still held reads as stopped while a runtime holds it: left
    // running. Released, it is stopped, but the scenario settles every run it stops: never resumed.
    if (run.status === 'interrupted') {
      const why = (run.result as { code?: string } | null)?.code ?? 'no code';
      violations.push(
        lease !== undefined
          ? `5. run ${run.runId} was left running: it is marked interrupted (${why}) while its lease is still held (${lease})`
          : `5. run ${run.runId} was left interrupted by a store error (${why}) and never resumed to its end`,
      );
    }
    for (const [key] of starts) {
      if (ends.has(key)) continue;
      const waiting = interrupted(key)?.decision === 'pending' && run.status === 'waiting';
      if (!waiting) violations.push(`5. step ${key} was left executing: its start has no end${run.status === 'waiting' ? ' and no pending approval' : ''}`);
    }
    const allStarts = journal.filter((record) => record.type === 'start');
    const allEnds = new Set(journal.filter((record) => record.type !== 'start').map((record) => record.effectKey));
    for (const start of allStarts) {
      // Effects inside an attempt that was interrupted belong to that attempt, which is over.
      if (isTool(start.effectKey) || allEnds.has(start.effectKey) || start.effectKey.includes('/')) continue;
      violations.push(`5. effect ${start.effectKey} was left in flight: its start (position ${start.position}) has no end`);
    }
  }
  // 6. No lease left.
  if (lease !== undefined) violations.push(`6. a lease was left on run ${runId}: ${lease}`);
  // 7. Every crash reached.
  seen.crashes.slice(seen.reached.length).forEach((crash) => {
    violations.push(
      `7. crash at ${crash.point}${crash.tool ? ` (${crash.tool})` : ''}${(crash.occurrence ?? 1) > 1 ? ` #${crash.occurrence}` : ''} was never reached: the run never passed that point${seen.reached.length > 0 ? ` after the crash at ${seen.reached[seen.reached.length - 1]!.point}` : ''}`,
    );
  });
  return violations;
}
