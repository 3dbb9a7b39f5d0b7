import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { canonicalJson } from '../recordings/internal.js';
import { excerpt, ModeltapeError } from '../core/internal.js';
import {
  checkDecision,
  ToolBox,
  SIDE_EFFECT_CLASSES,
  type Json,
  type Policy,
  type PolicyDecision,
  type PolicyRequest,
  type RunView,
  type SideEffectClass,
  type Tool,
} from '../runtime/internal.js';
import { GenerationCache, generateValue } from '../schema/internal.js';

/** Stands for arguments the runtime refuses before the policy sees them (unknown tool, arguments that fail the schema). */
export const Refused = 'refused (before the policy)' as const;
export type Refused = typeof Refused;

export type WantedOutcome = PolicyDecision['outcome'] | Refused;

export interface PolicyCase {
  name: string;
  tool: string;
  args: Json;
  /** Merged over a default view (run `policy-check`, step 0, no previous calls). */
  view?: Partial<RunView>;
  want: WantedOutcome;
  /** For `require_approval`: the approval kind wanted. */
  kind?: string;
  /** Substrings the policy's reason must contain. */
  reason?: string | readonly string[];
}

export interface PolicyCaseResult {
  case: string;
  request: string;
  wanted: string;
  got: string;
  reason: string;
  agrees: boolean;
}

export interface PolicyReport {
  results: PolicyCaseResult[];
  disagreements: PolicyCaseResult[];
  /** The disagreements as one table: case, request, wanted, got, the policy's reason. */
  table: string;
  /** Every case agreed, and there was at least one. */
  passed: boolean;
  /** Throws {@link PolicyDisagreementError} with the table unless every case agreed (and there was at least one). */
  assertAgrees(): void;
}

/**
 * A policy check that failed. `table` holds the evidence: the disagreeing cases (checkPolicy), the
 * counterexamples (never) or the failed checks (checkPolicyBattery); it is empty when the check
 * could not be made at all (no cases, no tool of the class).
 */
export class PolicyDisagreementError extends ModeltapeError {
  readonly table: string;

  constructor(message: string, table = '') {
    super('policy_disagreement', message);
    this.table = table;
  }
}

const DEFAULT_VIEW: RunView = { runId: 'policy-check', agent: 'policy-check', step: 0, previousCalls: [] };

function toolBox(tools: ToolBox | readonly Tool[]): ToolBox {
  return tools instanceof ToolBox ? tools : new ToolBox(tools);
}

function describeDecision(decision: PolicyDecision | Refused): string {
  if (decision === Refused) return Refused;
  return decision.outcome === 'require_approval' ? `require_approval (${decision.kind})` : decision.outcome;
}

/** The type of {@link checkPolicy}: the check, and its report-only form. */
export interface CheckPolicy {
  /**
   * Checks a policy against cases, through the runtime's own acceptance path first: arguments the
   * runtime would refuse never reach the policy, and a case wants {@link Refused} for them. Throws
   * {@link PolicyDisagreementError} with the table of disagreements (case, request, wanted, got,
   * the policy's reason) when any case disagrees, or when there is no case; returns the report
   * otherwise.
   *
   * @example
   * checkPolicy(policy, tools, [{ name: 'a deletion', tool: 'delete_account', args: { account: 7 }, want: 'deny' }]);
   */
  (policy: Policy, tools: ToolBox | readonly Tool[], cases: readonly PolicyCase[]): PolicyReport;
  /**
   * The same check as a report, without throwing on a disagreement: every case's result, the
   * table, `passed` and `assertAgrees()`. A case that is itself wrong (an approval kind on a case
   * that does not want require_approval) still throws.
   */
  report(policy: Policy, tools: ToolBox | readonly Tool[], cases: readonly PolicyCase[]): PolicyReport;
}

function reportPolicyCases(policy: Policy, tools: ToolBox | readonly Tool[], cases: readonly PolicyCase[]): PolicyReport {
  const box = toolBox(tools);
  for (const policyCase of cases) {
    if (policyCase.kind !== undefined && policyCase.want !== 'require_approval') {
      throw new PolicyDisagreementError(
        `Case "${policyCase.name}" gives an approval kind ("${policyCase.kind}") but wants ${policyCase.want}: a kind only applies to require_approval.`,
      );
    }
  }
  const results = cases.map((policyCase): PolicyCaseResult => {
    const request = `${policyCase.tool}(${JSON.stringify(policyCase.args)})`;
    const acceptance = box.accept(policyCase.tool, policyCase.args);
    let got: PolicyDecision | Refused;
    let reason: string;
    if (!acceptance.accepted) {
      got = Refused;
      reason = acceptance.reason;
    } else {
      try {
        const checked = checkDecision(
          policy({ tool: policyCase.tool, args: policyCase.args, sideEffect: acceptance.tool.sideEffect }, { ...DEFAULT_VIEW, ...policyCase.view }),
        );
        if (!checked.ok) {
          return {
            case: policyCase.name,
            request,
            wanted: String(policyCase.want),
            got: 'not a decision (the runtime fails the run)',
            reason: checked.reason,
            agrees: false,
          };
        }
        got = checked.decision;
        reason = got.reason ?? '';
      } catch (error) {
        return {
          case: policyCase.name,
          request,
          wanted: String(policyCase.want),
          got: `threw ${(error as Error)?.name}`,
          reason: (error as Error)?.message ?? String(error),
          agrees: false,
        };
      }
    }
    const wantedReasons = policyCase.reason === undefined ? [] : typeof policyCase.reason === 'string' ? [policyCase.reason] : [...policyCase.reason];
    const wanted = `${policyCase.want === 'require_approval' && policyCase.kind ? `require_approval (${policyCase.kind})` : policyCase.want}${wantedReasons.length > 0 ? `, reason with ${wantedReasons.map((text) => JSON.stringify(text)).join(' and ')}` : ''}`;
    const outcome = got === Refused ? Refused : got.outcome;
    const agrees =
      outcome === policyCase.want &&
      (policyCase.kind === undefined || (got !== Refused && got.outcome === 'require_approval' && got.kind === policyCase.kind)) &&
      wantedReasons.every((text) => reason.includes(text));
    return { case: policyCase.name, request, wanted, got: describeDecision(got), reason, agrees };
  });
  const disagreements = results.filter((result) => !result.agrees);
  const table = formatTable(
    ['case', 'request', 'wanted', 'got', "policy's reason"],
    disagreements.map((row) => [row.case, row.request, row.wanted, row.got, row.reason]),
  );
  return {
    results,
    disagreements,
    table,
    passed: results.length > 0 && disagreements.length === 0,
    assertAgrees(): void {
      if (results.length === 0) throw new PolicyDisagreementError('checkPolicy was given no cases, so it checked nothing.');
      if (disagreements.length > 0)
        throw new PolicyDisagreementError(`The policy disagrees with ${disagreements.length} of ${results.length} cases:\n${table}`, table);
    },
  };
}

export const checkPolicy: CheckPolicy = Object.assign(
  (policy: Policy, tools: ToolBox | readonly Tool[], cases: readonly PolicyCase[]): PolicyReport => {
    const report = reportPolicyCases(policy, tools, cases);
    report.assertAgrees();
    return report;
  },
  { report: reportPolicyCases },
);

/** How requests are generated from each tool's schema. */
export interface RequestFuzz {
  /** Requests per tool. @default 20 */
  count?: number;
  /** @default 0 */
  seed?: number;
}

/** Valid arguments for a tool, generated from its schema (deterministic for a seed). */
function generatedRequests(tool: Tool, fuzz: RequestFuzz, cache: GenerationCache): PolicyRequest[] {
  const count = fuzz.count ?? 20;
  const seen = new Set<string>();
  const requests: PolicyRequest[] = [];
  for (let index = 0; index < count * 3 && requests.length < count; index++) {
    const args = generateValue(tool.parameters as Record<string, unknown>, { seed: (fuzz.seed ?? 0) * 7919 + index, useExamples: index === 0, cache }) as Json;
    const text = canonicalJson(args);
    if (seen.has(text)) continue;
    seen.add(text);
    requests.push({ tool: tool.name, args, sideEffect: tool.sideEffect });
  }
  return requests;
}

/** What {@link never} found, from `never.report(…)`. */
export interface NeverReport {
  /** How many evaluations (a generated request under a view) got a decision. */
  checked: number;
  /** The evaluations that got the outcome: `tool(args) at step N: outcome (reason)`. */
  counterexamples: string[];
  /** Answers the runtime would not act on (the policy threw, or answered no decision), one message each. */
  invalid: string[];
  /** Why nothing could be checked (no tool of the class, no generated request accepted). */
  problem?: string;
  /** Something was checked, every answer was a decision and none was the outcome. */
  passed: boolean;
  /** Throws {@link PolicyDisagreementError} with the counterexamples unless `passed`. */
  assertNever(): void;
}

/** The type of {@link never}: the check, and its report-only form. */
export interface Never {
  /**
   * Generated requests for every tool of `sideEffectClass`, evaluated under each view, never get
   * `outcome`. Throws {@link PolicyDisagreementError} naming the counterexamples, or the first
   * answer that is no decision; throws when the class has no tool (a check of nothing is a
   * failure). Returns how many evaluations it checked.
   *
   * @example
   * never(policy, tools, 'destructive', 'allow', { count: 50 }, [{}, { step: 9 }]);
   */
  (
    policy: Policy,
    tools: ToolBox | readonly Tool[],
    sideEffectClass: SideEffectClass,
    outcome: PolicyDecision['outcome'],
    fuzz?: RequestFuzz,
    views?: ReadonlyArray<Partial<RunView>>,
  ): number;
  /**
   * The same check as a report, without throwing on what it finds: the evaluations checked, the
   * counterexamples, the answers that were no decision, `passed` and `assertNever()`. An unknown
   * side-effect class still throws.
   */
  report(
    policy: Policy,
    tools: ToolBox | readonly Tool[],
    sideEffectClass: SideEffectClass,
    outcome: PolicyDecision['outcome'],
    fuzz?: RequestFuzz,
    views?: ReadonlyArray<Partial<RunView>>,
  ): NeverReport;
}

function reportNever(
  policy: Policy,
  tools: ToolBox | readonly Tool[],
  sideEffectClass: SideEffectClass,
  outcome: PolicyDecision['outcome'],
  fuzz: RequestFuzz = {},
  views: ReadonlyArray<Partial<RunView>> = [{}],
): NeverReport {
  if (!SIDE_EFFECT_CLASSES.includes(sideEffectClass))
    throw new PolicyDisagreementError(`Unknown side-effect class "${String(sideEffectClass)}": expected one of ${SIDE_EFFECT_CLASSES.join(', ')}.`);
  const box = toolBox(tools);
  const ofClass = box.tools().filter((tool) => tool.sideEffect === sideEffectClass);
  const counterexamples: string[] = [];
  const invalid: string[] = [];
  let checked = 0;
  // Each check holds its own generation cache: what one check generates never reaches another.
  const cache = new GenerationCache();
  for (const tool of ofClass) {
    for (const request of generatedRequests(tool, fuzz, cache)) {
      if (!box.accept(request.tool, request.args).accepted) continue;
      for (const view of views) {
        let answer: unknown;
        try {
          answer = policy(structuredClone(request), { ...DEFAULT_VIEW, ...view });
        } catch (error) {
          invalid.push(
            `never(${sideEffectClass}, ${outcome}): the policy threw on ${request.tool}(${JSON.stringify(request.args)}): ${(error as Error)?.message}. A policy must answer every request.`,
          );
          continue;
        }
        const checkedAnswer = checkDecision(answer);
        if (!checkedAnswer.ok) {
          invalid.push(
            `never(${sideEffectClass}, ${outcome}): on ${request.tool}(${JSON.stringify(request.args)}) the policy ${checkedAnswer.reason}; the runtime would fail the run.`,
          );
          continue;
        }
        const decision = checkedAnswer.decision;
        checked++;
        if (decision.outcome === outcome)
          counterexamples.push(
            `${request.tool}(${JSON.stringify(request.args)}) at step ${view.step ?? 0}${view.previousCalls?.length ? ` after ${view.previousCalls.length} calls` : ''}: ${describeDecision(decision)}${decision.reason ? ` (${decision.reason})` : ''}`,
          );
      }
    }
  }
  let problem: string | undefined;
  if (ofClass.length === 0) {
    problem = `never(${sideEffectClass}, ${outcome}): no tool has side-effect class ${sideEffectClass} (tools: ${
      box
        .tools()
        .map((tool) => `${tool.name} (${tool.sideEffect})`)
        .join(', ') || 'none'
    }), so nothing would be checked.`;
  } else if (checked === 0 && invalid.length === 0) {
    problem = `never(${sideEffectClass}, ${outcome}): no generated request was accepted, so nothing was checked.`;
  }
  const table =
    counterexamples
      .slice(0, 10)
      .map((line) => `  ${line}`)
      .join('\n') + (counterexamples.length > 10 ? `\n  … and ${counterexamples.length - 10} more` : '');
  return {
    checked,
    counterexamples,
    invalid,
    ...(problem === undefined ? {} : { problem }),
    passed: problem === undefined && invalid.length === 0 && counterexamples.length === 0,
    assertNever(): void {
      if (problem !== undefined) throw new PolicyDisagreementError(problem);
      // The first answer the runtime would not act on says the most; the rest are usually the same.
      if (invalid.length > 0) throw new PolicyDisagreementError(invalid[0]!);
      if (counterexamples.length > 0)
        throw new PolicyDisagreementError(
          `The policy answered ${outcome} to ${counterexamples.length} of ${checked} generated ${sideEffectClass} requests:\n${table}`,
          table,
        );
    },
  };
}

export const never: Never = Object.assign(
  (...args: Parameters<Never['report']>): number => {
    const report = reportNever(...args);
    report.assertNever();
    return report.checked;
  },
  { report: reportNever },
);

export interface PolicyBatteryCheck {
  name: 'total' | 'pure' | 'same answer twice' | 'same answer whatever came before' | 'refusals name a rule' | 'stable digest';
  passed: boolean;
  problem?: string;
}

export interface PolicyBatteryReport {
  checks: PolicyBatteryCheck[];
  /** sha256 over every (request, view, decision): snapshot it to see when the policy's behaviour changes. */
  digest: string;
  /** How many requests were evaluated (each under every view). */
  requests: number;
  passed: boolean;
  /** Throws {@link PolicyDisagreementError} listing the failed checks unless every check passed. */
  assertConforms(name?: string): void;
}

export interface PolicyBatteryOptions {
  /** How requests are generated from each tool's schema. */
  fuzz?: RequestFuzz;
  /** The views each request is evaluated under. @default step 0 with no calls, and step 3 after one call */
  views?: ReadonlyArray<Partial<RunView>>;
  /** The policy's name in the failure message. @default "the policy" */
  name?: string;
}

/** The type of {@link checkPolicyBattery}: the check, and its report-only form. */
export interface CheckPolicyBattery {
  /**
   * Holds a policy to what the runtime needs of it: total (an answer for every request, of a
   * known outcome), pure (it reads no clock or randomness and changes nothing it is given), the
   * same answer twice, the same answer whatever it evaluated before, refusals that name a rule,
   * and a stable digest of its answers. Requests are generated from every tool's schema. Throws
   * {@link PolicyDisagreementError} listing the failed checks when any fails; returns the report
   * otherwise (snapshot its `digest` to see when the policy's behaviour changes).
   *
   * @example
   * expect(checkPolicyBattery(policy, tools, { name: 'parcel policy' }).digest).toMatchSnapshot();
   */
  (policy: Policy, tools: ToolBox | readonly Tool[], options?: PolicyBatteryOptions): PolicyBatteryReport;
  /** The same checks as a report, without throwing on a failed one: `checks`, `passed`, `assertConforms()`. */
  report(policy: Policy, tools: ToolBox | readonly Tool[], options?: PolicyBatteryOptions): PolicyBatteryReport;
}

function reportPolicyBattery(policy: Policy, tools: ToolBox | readonly Tool[], options: PolicyBatteryOptions = {}): PolicyBatteryReport {
  const box = toolBox(tools);
  const views = (options.views ?? [{}, { step: 3, previousCalls: [{ tool: box.names()[0] ?? 'tool', args: {} }] }]).map((view) => ({
    ...DEFAULT_VIEW,
    ...view,
  }));
  const pairs: Array<{ request: PolicyRequest; view: RunView }> = [];
  const cache = new GenerationCache();
  for (const tool of box.tools())
    for (const request of generatedRequests(tool, options.fuzz ?? {}, cache))
      if (box.accept(request.tool, request.args).accepted) for (const view of views) pairs.push({ request, view });
  const checks: PolicyBatteryCheck[] = [];
  const check = (name: PolicyBatteryCheck['name'], body: () => string | undefined): void => {
    let problem: string | undefined;
    try {
      problem = body();
    } catch (error) {
      problem = `threw ${(error as Error)?.name}: ${(error as Error)?.message}`;
    }
    checks.push({ name, passed: problem === undefined, ...(problem === undefined ? {} : { problem }) });
  };
  const label = ({ request, view }: { request: PolicyRequest; view: RunView }): string =>
    `${request.tool}(${JSON.stringify(request.args)}) at step ${view.step}`;

  let first: Array<PolicyDecision | undefined> = [];
  check('total', () => {
    if (pairs.length === 0) return 'no request could be generated and accepted for any tool, so nothing was checked';
    first = pairs.map((pair) => {
      try {
        return policy(structuredClone(pair.request), structuredClone(pair.view));
      } catch {
        return undefined;
      }
    });
    const bad = pairs.map((pair, index) => [pair, first[index]] as const).filter(([, decision]) => !isDecision(decision));
    return bad.length === 0
      ? undefined
      : `${bad.length} of ${pairs.length} requests got no valid answer, e.g. ${label(bad[0]![0])}: ${bad[0]![1] === undefined ? 'it threw' : JSON.stringify(bad[0]![1])}`;
  });
  check('pure', () => {
    const problems: string[] = [];
    for (const pair of pairs) {
      const request = structuredClone(pair.request);
      const view = structuredClone(pair.view);
      const read = watchingAmbientReads(() => {
        try {
          policy(request, view);
        } catch {
          // totality is checked above
        }
      });
      if (read.length > 0) problems.push(`${label(pair)} read ${read.join(' and ')}`);
      else if (!isDeepStrictEqual(request, pair.request) || !isDeepStrictEqual(view, pair.view))
        problems.push(`${label(pair)} changed the request or view it was given`);
      if (problems.length >= 3) break;
    }
    return problems.length === 0 ? undefined : problems.join('; ');
  });
  check('same answer twice', () => {
    const index = pairs.findIndex((pair, at) => !isDeepStrictEqual(safe(policy, pair), first[at]));
    return index < 0 ? undefined : `${label(pairs[index]!)} answered ${JSON.stringify(first[index])}, then ${JSON.stringify(safe(policy, pairs[index]!))}`;
  });
  check('same answer whatever came before', () => {
    // Reverse order, then a seeded shuffle: an answer that depends on earlier evaluations shows.
    const orders = [pairs.map((_, index) => pairs.length - 1 - index), shuffled(pairs.length, 99)];
    for (const order of orders) {
      const answers = new Map<number, PolicyDecision | undefined>();
      for (const index of order) answers.set(index, safe(policy, pairs[index]!));
      const index = pairs.findIndex((_, at) => !isDeepStrictEqual(answers.get(at), first[at]));
      if (index >= 0)
        return `${label(pairs[index]!)} answered ${JSON.stringify(first[index])} first, and ${JSON.stringify(answers.get(index))} when evaluated in another order`;
    }
    return undefined;
  });
  check('refusals name a rule', () => {
    const named = (text: unknown): boolean => typeof text === 'string' && text.trim() !== '';
    const index = first.findIndex((decision) => decision !== undefined && decision.outcome !== 'allow' && !(named(decision.rule) && named(decision.reason)));
    return index < 0
      ? undefined
      : `${label(pairs[index]!)} got ${describeDecision(first[index]!)} with ${named(first[index]!.rule) ? 'no reason' : 'no rule'}: ${JSON.stringify(first[index])}. Give every deny and require_approval a rule (e.g. rule: "no-destructive-without-review") and a reason.`;
  });
  const digestOf = (answers: ReadonlyArray<PolicyDecision | undefined>): string =>
    createHash('sha256')
      .update(canonicalJson(pairs.map((pair, index) => [pair.request, pair.view, answers[index] ?? null])))
      .digest('hex');
  const digest = digestOf(first);
  check('stable digest', () => {
    const again = digestOf(pairs.map((pair) => safe(policy, pair)));
    return again === digest ? undefined : `the digest of its answers changed between two evaluations (${digest.slice(0, 12)} then ${again.slice(0, 12)})`;
  });
  const passed = checks.every((entry) => entry.passed);
  return {
    checks,
    digest,
    requests: pairs.length,
    passed,
    assertConforms(name?: string): void {
      const failed = checks.filter((entry) => !entry.passed);
      if (failed.length === 0) return;
      const table = failed.map((entry) => `  ✗ ${entry.name}: ${entry.problem}`).join('\n');
      throw new PolicyDisagreementError(
        `${name === undefined ? 'The policy' : `Policy "${name}"`} fails ${failed.length} of ${checks.length} checks:\n${table}`,
        table,
      );
    },
  };
}

export const checkPolicyBattery: CheckPolicyBattery = Object.assign(
  (policy: Policy, tools: ToolBox | readonly Tool[], options: PolicyBatteryOptions = {}): PolicyBatteryReport => {
    const report = reportPolicyBattery(policy, tools, options);
    report.assertConforms(options.name);
    return report;
  },
  { report: reportPolicyBattery },
);

function safe(policy: Policy, pair: { request: PolicyRequest; view: RunView }): PolicyDecision | undefined {
  try {
    return policy(structuredClone(pair.request), structuredClone(pair.view));
  } catch {
    return undefined;
  }
}

/** The runtime's own test of an answer: what it would act on, and nothing else. */
function isDecision(decision: unknown): boolean {
  return checkDecision(decision).ok;
}

/**
 * Runs `body` while the clock and randomness are watched, and says which it read. The globals are
 * wrapped only for the duration of the synchronous call (a policy is a synchronous function), and
 * restored after.
 */
function watchingAmbientReads(body: () => void): string[] {
  const read = new Set<string>();
  const RealDate = Date;
  const realNow = Date.now;
  const realRandom = Math.random;
  const realPerformanceNow = performance.now;
  const WatchedDate = function (this: unknown, ...args: unknown[]) {
    if (args.length === 0) read.add('the clock (new Date())');
    return new.target ? Reflect.construct(RealDate, args, new.target) : RealDate();
  } as unknown as DateConstructor;
  Object.setPrototypeOf(WatchedDate, RealDate);
  Object.defineProperty(WatchedDate, 'prototype', { value: RealDate.prototype });
  WatchedDate.now = () => (read.add('the clock (Date.now)'), realNow.call(RealDate));
  try {
    globalThis.Date = WatchedDate;
    Math.random = () => (read.add('randomness (Math.random)'), realRandom());
    performance.now = () => (read.add('the clock (performance.now)'), realPerformanceNow.call(performance));
    body();
  } finally {
    globalThis.Date = RealDate;
    Math.random = realRandom;
    performance.now = realPerformanceNow;
  }
  return [...read];
}

function shuffled(length: number, seed: number): number[] {
  const order = Array.from({ length }, (_, index) => index);
  let state = seed >>> 0;
  for (let index = length - 1; index > 0; index--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const other = state % (index + 1);
    [order[index], order[other]] = [order[other]!, order[index]!];
  }
  return order;
}

function formatTable(header: string[], rows: string[][]): string {
  const cut = (text: string): string => excerpt(text, 58);
  const cells = [header, ...rows.map((row) => row.map(cut))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  const line = (row: string[]): string => `  ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(' │ ')}`.trimEnd();
  return [line(header), `  ${widths.map((width) => '─'.repeat(width)).join('─┼─')}`, ...cells.slice(1).map(line)].join('\n');
}
