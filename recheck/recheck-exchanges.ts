// The recheck engine: sends the chosen recorded requests again, a few at a time, within a budget of
// requests and dollars, waiting as a rate-limited upstream asks, and sorts each fresh answer
// against its recording. Every exchange it was given ends either checked or listed as not checked
// with why: nothing is lost.
import type { Exchange } from '../recordings/internal.js';
import { guessProvider } from '../providers/internal.js';
import { costOf, priceOf, type PriceOverrides, type TokenCounts } from '../tape-report/internal.js';
import { answerBehaviour, ResponseSchemas, type AnswerBehaviour } from './answer-behaviour.js';
import { compareAnswers, VERDICTS, type Verdict } from './compare-answers.js';
import { recordedResponseOf, type FreshResponse } from './fresh-response.js';
import type { Skipped, TapeExchange } from './select-exchanges.js';

/** How a recheck sends and how much it may spend. */
export interface RecheckOptions {
  /** Sends the request of `exchange` again and resolves with the whole answer; rejects when the upstream could not be reached. */
  send: (exchange: Exchange) => Promise<FreshResponse>;
  /** Requests in flight at once. @default 2 */
  concurrency?: number;
  /** Send at most this many exchanges (retries of one are not counted apart). */
  maxRequests?: number;
  /** Stop before the estimated spend (the recorded usage at the report's prices) would pass this many US dollars. */
  maxCostUsd?: number;
  /** Prices from the config, over the shipped table. */
  prices?: PriceOverrides;
  /** Tries of one exchange that the upstream answers 429, 503 or 529 before it is left unchecked. @default 5 */
  tries?: number;
  /** Waits between tries (tests pass their own). @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
  /** List what would be sent and its estimated cost; send nothing. */
  dryRun?: boolean;
  /** Told after each exchange is settled. */
  onProgress?: (settled: number, total: number) => void;
  /** Given each exchange sorted, with the whole answer the upstream gave (what `--write` writes). */
  onChecked?: (checked: CheckedExchange, fresh: FreshResponse) => void;
}

/** The model that answered, as the request named it and as the provider said then and now. */
export interface AnsweringModel {
  requested: string | undefined;
  then: string | undefined;
  now: string | undefined;
}

/** One exchange sent again and sorted. */
export interface CheckedExchange {
  tape: string;
  line: number;
  upstream: string;
  method: string;
  path: string;
  verdict: Verdict;
  /** What moved, each by its path; empty for `identical`. */
  reasons: string[];
  model: AnsweringModel;
  /** Requests sent for it (more than 1 when the upstream asked to wait). */
  tries: number;
  /** Tokens the fresh answer reports. */
  tokens: TokenCounts | undefined;
  /** What the fresh answer cost at the report's prices; undefined when its model has no price. */
  costUsd: number | undefined;
  recorded: AnswerBehaviour;
  fresh: AnswerBehaviour;
}

/** An exchange left as it was recorded, and why. */
export interface NotChecked {
  tape: string;
  line: number;
  reason: string;
}

/** What a dry run would send. */
export interface PlannedExchange {
  tape: string;
  line: number;
  upstream: string;
  method: string;
  path: string;
  model: string | undefined;
  /** From the recorded usage at the report's prices; undefined when it cannot be estimated. */
  estimatedUsd: number | undefined;
}

export interface RecheckReport {
  dryRun: boolean;
  checked: CheckedExchange[];
  notChecked: NotChecked[];
  /** Dry run: what would be sent. */
  planned: PlannedExchange[];
  counts: Record<Verdict, number>;
  spent: { requests: number; tokens: TokenCounts; usd: number; unpricedModels: string[] };
  /** The estimate for what was (or, in a dry run, would be) sent; undefined parts are in `unpricedModels`. */
  estimatedUsd: number;
}

const RETRY_STATUSES = new Set([429, 503, 529]);
const LONGEST_WAIT_MS = 5 * 60_000;

/** Rechecks `selected`; `skipped` (from selectExchanges) is reported as not checked. */
export async function recheckExchanges(selected: readonly TapeExchange[], skipped: readonly Skipped[], options: RecheckOptions): Promise<RecheckReport> {
  const schemas = new ResponseSchemas();
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const tries = Math.max(1, options.tries ?? 5);
  const report: RecheckReport = {
    dryRun: options.dryRun === true,
    checked: [],
    notChecked: skipped.map((entry) => ({ ...entry })),
    planned: [],
    counts: Object.fromEntries(VERDICTS.map((verdict) => [verdict, 0])) as Record<Verdict, number>,
    spent: { requests: 0, tokens: { input: 0, cachedInput: 0, cacheWrite: 0, output: 0 }, usd: 0, unpricedModels: [] },
    estimatedUsd: 0,
  };
  const unpriced = new Set<string>();
  const estimateOf = (entry: TapeExchange): number | undefined => {
    const model = entry.facts.model;
    const price = model === undefined ? undefined : priceOf(model, guessProvider(entry.exchange.upstream), options.prices);
    if (price === undefined) unpriced.add(model ?? '(no model)');
    return price === undefined || entry.facts.usage === undefined ? undefined : costOf(entry.facts.usage, price.price);
  };

  if (options.dryRun === true) {
    for (const entry of selected) {
      const estimatedUsd = estimateOf(entry);
      report.estimatedUsd += estimatedUsd ?? 0;
      const { upstream, request } = entry.exchange;
      report.planned.push({ tape: entry.tape, line: entry.line, upstream, method: request.method, path: request.path, model: entry.facts.model, estimatedUsd });
    }
    report.spent.unpricedModels = [...unpriced].sort();
    return report;
  }

  let next = 0;
  let settled = 0;
  let stopped: string | undefined;
  let reserved = 0;
  const results = new Map<TapeExchange, CheckedExchange | NotChecked>();
  const settle = (entry: TapeExchange, result: CheckedExchange | NotChecked): void => {
    results.set(entry, result);
    options.onProgress?.(++settled, selected.length);
  };

  const one = async (entry: TapeExchange, estimate: number | undefined): Promise<void> => {
    let fresh: FreshResponse | undefined;
    let tried = 0;
    try {
      while (tried < tries) {
        tried++;
        fresh = await options.send(entry.exchange);
        if (!RETRY_STATUSES.has(fresh.status) || tried === tries) break;
        const wait = waitOf(fresh.headers, tried);
        if (wait > LONGEST_WAIT_MS) break;
        await sleep(wait);
      }
    } catch (error) {
      settle(entry, { tape: entry.tape, line: entry.line, reason: `could not be sent: ${(error as Error).message}` });
      return;
    } finally {
      reserved -= estimate ?? 0;
    }
    if (RETRY_STATUSES.has(fresh!.status)) {
      settle(entry, {
        tape: entry.tape,
        line: entry.line,
        reason: `the upstream still answered ${fresh!.status} after ${tried} tries; run again later or with a lower --concurrency`,
      });
      return;
    }
    const freshExchange: Exchange = { ...entry.exchange, response: recordedResponseOf(fresh!) };
    const recorded = answerBehaviour(entry.exchange, schemas);
    const now = answerBehaviour(freshExchange, schemas);
    const { verdict, reasons } = compareAnswers(recorded, now);
    const model = entry.facts.model;
    const price = model === undefined ? undefined : priceOf(model, guessProvider(entry.exchange.upstream), options.prices);
    const costUsd = price === undefined || now.usage === undefined ? undefined : costOf(now.usage, price.price);
    if (now.usage !== undefined && price === undefined) unpriced.add(model ?? '(no model)');
    // Counted before anything else may start: the budget check of the next exchange sees it.
    report.spent.usd += costUsd ?? 0;
    const checked: CheckedExchange = {
      tape: entry.tape,
      line: entry.line,
      upstream: entry.exchange.upstream,
      method: entry.exchange.request.method,
      path: entry.exchange.request.path,
      verdict,
      reasons,
      // The recording's own provenance when it has it (tape schema 4), else what its answer says.
      model: { requested: model, then: entry.exchange.response.answeredModel ?? recorded.answeredModel, now: now.answeredModel },
      tries: tried,
      tokens: now.usage,
      costUsd,
      recorded,
      fresh: now,
    };
    settle(entry, checked);
    options.onChecked?.(checked, fresh!);
  };

  const worker = async (): Promise<void> => {
    while (next < selected.length) {
      const entry = selected[next++]!;
      if (stopped !== undefined) {
        settle(entry, { tape: entry.tape, line: entry.line, reason: stopped });
        continue;
      }
      if (options.maxRequests !== undefined && report.spent.requests >= options.maxRequests) {
        stopped = `not sent: --max-requests ${options.maxRequests} was reached`;
        settle(entry, { tape: entry.tape, line: entry.line, reason: stopped });
        continue;
      }
      const estimate = estimateOf(entry);
      if (options.maxCostUsd !== undefined) {
        if (estimate === undefined) {
          settle(entry, {
            tape: entry.tape,
            line: entry.line,
            reason: `not sent: its cost cannot be estimated under --max-cost (${entry.facts.usage === undefined ? 'its recording reports no usage' : `no price for model ${entry.facts.model ?? '(none)'}; add it to "prices" in modeltape.config.json`})`,
          });
          continue;
        }
        const spent = report.spent.usd + reserved;
        if (spent + estimate > options.maxCostUsd) {
          stopped = `not sent: --max-cost ${usdText(options.maxCostUsd)} would be passed (${usdText(spent)} spent or in flight, about ${usdText(estimate)} more for this one)`;
          settle(entry, { tape: entry.tape, line: entry.line, reason: stopped });
          continue;
        }
      }
      report.spent.requests++;
      report.estimatedUsd += estimate ?? 0;
      reserved += estimate ?? 0;
      await one(entry, estimate);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 2, selected.length)) }, worker));

  // In tape order, whatever order they settled in.
  for (const entry of selected) {
    const result = results.get(entry)!;
    if ('verdict' in result) {
      report.checked.push(result);
      report.counts[result.verdict]++;
      for (const kind of ['input', 'cachedInput', 'cacheWrite', 'output'] as const) report.spent.tokens[kind] += result.tokens?.[kind] ?? 0;
    } else report.notChecked.push(result);
  }
  report.notChecked.sort((left, right) => (left.tape === right.tape ? left.line - right.line : left.tape < right.tape ? -1 : 1));
  report.spent.unpricedModels = [...unpriced].sort();
  return report;
}

/**
 * How long the upstream asked to wait: `retry-after-ms` (OpenAI's, Anthropic's), else
 * `retry-after` in seconds or as an HTTP date, else a backoff doubling from 1 s.
 */
export function waitOf(headers: Record<string, string | string[]>, tried: number, now: () => number = Date.now): number {
  const first = (name: string): string | undefined => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const ms = Number(first('retry-after-ms'));
  if (first('retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const after = first('retry-after');
  if (after !== undefined) {
    if (/^\s*\d+(\.\d+)?\s*$/.test(after)) return Number(after) * 1000;
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return Math.max(0, date - now());
  }
  return Math.min(30_000, 1000 * 2 ** (tried - 1));
}

/** US dollars as the report writes them: `$0.0123`. */
export function usdText(value: number): string {
  return `$${value < 0.01 && value > 0 ? value.toPrecision(2) : value.toFixed(value < 1 ? 4 : 2)}`;
}
