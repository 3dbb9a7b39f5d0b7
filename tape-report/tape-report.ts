// `modeltape report`: what a suite's tapes cover of the providers' behaviour, what they would cost
// to record again, and how old they are. Built from the tapes alone: nothing is run.
import { ModeltapeError, maskValue } from '../core/internal.js';
import { TURN_APIS, answeredModelOf, guessProvider } from '../providers/internal.js';
import { describeExchange, readTape, recordedAtOf, responsePayloads, TapeFormatError, type Exchange, type LoadedExchange } from '../recordings/internal.js';
import { answerFacts, type AnswerFacts, type TokenCounts } from './answer-facts.js';
import { PRICES_AS_OF, PRICE_TABLE, costOf, priceOf, type PriceOverrides } from './prices.js';
import { addDate, daysBetween, staleness, type AgeLimit, type TapeDates } from './tape-age.js';
import { displayPath, testOfTape, type TapeTest } from './test-of-tape.js';

/**
 * The provider behaviours a suite can exercise. Each is counted over the model turns (and, for
 * the statuses, every provider exchange); the ones counted 0 are what the suite never sees.
 */
export const BEHAVIOURS = [
  'streamed',
  'not-streamed',
  'tool-call',
  'parallel-tool-calls',
  'structured-output',
  'finish-stop',
  'finish-tool-calls',
  'finish-length',
  'finish-content-filter',
  'refusal',
  'stream-error',
  'status-4xx',
  'status-429',
  'status-5xx',
] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

const BEHAVIOUR_WORDS: Record<Behaviour, string> = {
  streamed: 'a streamed answer',
  'not-streamed': 'an answer not streamed',
  'tool-call': 'an answer with one tool call',
  'parallel-tool-calls': 'an answer with parallel tool calls',
  'structured-output': 'a request for structured output (a response schema)',
  'finish-stop': 'an answer that finished normally (stop, end_turn, STOP, completed)',
  'finish-tool-calls': 'an answer that stopped for its tool calls',
  'finish-length': 'an answer cut at its token limit (length, max_tokens, MAX_TOKENS, max_output_tokens)',
  'finish-content-filter': 'an answer filtered (content_filter, SAFETY, RECITATION)',
  refusal: 'a refusal (OpenAI refusal, stop_reason refusal, a blocked prompt)',
  'stream-error': "a stream that ends in the provider's error event (a recorded failure)",
  'status-4xx': 'a 4xx error other than 429 (400, 401, 404…)',
  'status-429': 'a 429 rate limit',
  'status-5xx': 'a 5xx error (500, 503, 529 overloaded)',
};

/** Tokens with their sum. */
export type TokenTotals = TokenCounts & { total: number };

/** One tape's part of the report. */
export interface TapeSummary {
  /** The tape, relative to the working directory (absolute outside it). */
  file: string;
  /**
   * In the tape-per-test layout of `tapeForCurrentTest()` (`__tapes__/FILE/NAME.jsonl`): its test
   * file and the test's name, read back with the titles the test file holds.
   */
  test: TapeTest | undefined;
  exchanges: number;
  fake: number;
  models: string[];
  tokens: TokenTotals;
  /** USD a re-recording of its live exchanges would cost, for the tokens with a price. */
  costUsd: number;
  /** Models of its live exchanges that have usage but no price. */
  unpriced: string[];
  oldest: string | undefined;
  newest: string | undefined;
  /** Days since the oldest exchange was recorded. */
  ageDays: number | undefined;
  undated: number;
  /** Why it is stale under the age limit, when there is one and it is. */
  stale: string | undefined;
}

/** A count of something seen, and where the first few were (`FILE:LINE`). */
export interface Seen {
  name: string;
  count: number;
  where: string[];
}

export interface TapeReport {
  /** The UTC day ages were counted to. */
  today: string;
  tapes: TapeSummary[];
  totals: {
    tapes: number;
    exchanges: number;
    fake: number;
    tokens: TokenTotals;
    costUsd: number;
    /** Tokens of live exchanges no price was found for, and their models. */
    unpricedTokens: number;
    unpriced: string[];
    /** Live model answers that recorded no usage (an OpenAI stream without `stream_options.include_usage`): their tokens are not counted. */
    unmetered: number;
    /**
     * Live model turns that are the provider's failure under a 2xx status (a stream that ended in
     * its error event, a Responses object `failed`): recorded failures, not answers. The usage they
     * report is counted; one that reports none is not unmetered, and leaves a budget checkable.
     */
    recordedFailures: number;
    oldest: string | undefined;
    newest: string | undefined;
    undated: number;
  };
  coverage: {
    /** Wire APIs (or METHOD path for routes no provider here has), with counts. */
    endpoints: Seen[];
    models: Seen[];
    /**
     * The models the answers say answered (`gpt-4o-2024-08-06`), as recorded with them (tape
     * schema 4) or, for older recordings, as their answers name them.
     */
    answeredModels: Seen[];
    /** The clients that sent the requests, as they announced themselves (their user agent; tape schema 4). */
    clients: Seen[];
    /** Every behaviour, in {@link BEHAVIOURS} order, with its count (0: never seen). */
    behaviours: Array<Seen & { name: Behaviour; description: string }>;
    /** Finish reasons as the providers wrote them (`openai-chat tool_calls`). */
    finishReasons: Seen[];
    statuses: Seen[];
    /** The behaviours never seen. */
    neverSeen: Behaviour[];
  };
  prices: { asOf: string; sources: string[]; fromConfig: string[] };
  limits: { maxAgeDays: number | undefined; stale: AgeLimit['stale'] | undefined; maxCostUsd: number | undefined; maxTokens: number | undefined };
  /** What fails the report (a budget exceeded, stale tapes under `--stale fail`, unpriced tokens under a cost budget). */
  failures: string[];
  /** What it warns of. */
  warnings: string[];
}

export interface ReportOptions {
  /** The day ages are counted to. @default now */
  now?: Date;
  /** Prices from config: they add models to the shipped table and win over it. */
  prices?: PriceOverrides;
  /** Tapes older than this are stale. */
  ageLimit?: AgeLimit;
  /** Fail when a re-recording of the live exchanges would cost more than this many USD. */
  maxCostUsd?: number;
  /** Fail when the tapes' tokens sum to more than this. */
  maxTokens?: number;
  /** File names in the report are relative to this folder (absolute outside it). @default process.cwd() */
  cwd?: string;
}

const WHERE_KEPT = 3;

/** Reads the tapes and reports what they cover, cost and how old they are. Throws a TapeFormatError naming file, line and field for a tape that is not valid. */
export function reportTapes(files: readonly string[], options: ReportOptions = {}): TapeReport {
  if (files.length === 0) throw new ModeltapeError('usage', 'reportTapes needs at least one tape.');
  const today = recordedAtOf(options.now ?? new Date());
  const cwd = options.cwd ?? process.cwd();
  const overrides = options.prices ?? {};
  const counters = new Counters();
  const tapes: TapeSummary[] = [];
  const unpricedAll = new Set<string>();
  let unpricedTokens = 0;
  const unmetered: string[] = [];
  let recordedFailures = 0;
  const usedConfig = new Set<string>();
  const titles = new Map<string, readonly string[]>();
  for (const file of files) {
    const name = displayPath(file, cwd);
    const summary: TapeSummary = {
      file: name,
      test: testOfTape(file, cwd, titles),
      exchanges: 0,
      fake: 0,
      models: [],
      tokens: zero(),
      costUsd: 0,
      unpriced: [],
      oldest: undefined,
      newest: undefined,
      ageDays: undefined,
      undated: 0,
      stale: undefined,
    };
    const models = new Set<string>();
    const unpriced = new Set<string>();
    const dates: TapeDates = { file: name, oldest: undefined, newest: undefined, undated: 0, exchanges: 0 };
    // Each line is read, counted and let go: a tape of any size reports in flat memory.
    const read = ({ exchange, line }: LoadedExchange): void => {
      summary.exchanges++;
      const where = `${name}:${line}`;
      const facts = answerFacts(exchange);
      counters.add(exchange, facts, where);
      if (facts.model !== undefined) models.add(facts.model);
      if (exchange.source === 'fake') summary.fake++;
      addDate(dates, exchange.recordedAt);
      const liveTurn = exchange.source === 'live' && isTurn(facts) && facts.status >= 200 && facts.status < 300;
      if (liveTurn && facts.failed) recordedFailures++;
      if (facts.usage === undefined) {
        // A failure the provider sent (its stream's error event) bills nothing it reports: not an unmetered answer.
        if (liveTurn && !facts.failed) unmetered.push(where);
        return;
      }
      addTokens(summary.tokens, facts.usage);
      // A FakeProvider's exchange costs nothing to record again.
      if (exchange.source === 'fake') return;
      const found = facts.model === undefined ? undefined : priceOf(facts.model, providerOfExchange(exchange, facts), overrides);
      if (found === undefined) {
        unpriced.add(facts.model ?? describeExchange(exchange));
        unpricedTokens += sum(facts.usage);
        return;
      }
      if (found.from === 'config') usedConfig.add(found.matched);
      summary.costUsd += costOf(facts.usage, found.price);
    };
    const contents = readTape(file, { keepExchanges: false, onExchange: read });
    if (contents.problems.length > 0 || contents.header === undefined) throw new TapeFormatError(contents.problems);
    summary.models = [...models].sort();
    summary.unpriced = [...unpriced].sort();
    for (const model of unpriced) unpricedAll.add(model);
    summary.oldest = dates.oldest;
    summary.newest = dates.newest;
    summary.undated = dates.undated;
    if (dates.oldest !== undefined) summary.ageDays = daysBetween(dates.oldest, today);
    if (options.ageLimit !== undefined) summary.stale = staleness(dates, options.ageLimit, today);
    tapes.push(summary);
  }
  const totals = {
    tapes: tapes.length,
    exchanges: tapes.reduce((total, tape) => total + tape.exchanges, 0),
    fake: tapes.reduce((total, tape) => total + tape.fake, 0),
    tokens: tapes.reduce((total, tape) => addTokens(total, tape.tokens), zero()),
    costUsd: tapes.reduce((total, tape) => total + tape.costUsd, 0),
    unpricedTokens,
    unpriced: [...unpricedAll].sort(),
    unmetered: unmetered.length,
    recordedFailures,
    oldest: tapes
      .map((tape) => tape.oldest)
      .filter((day) => day !== undefined)
      .sort()[0],
    newest: tapes
      .map((tape) => tape.newest)
      .filter((day) => day !== undefined)
      .sort()
      .at(-1),
    undated: tapes.reduce((total, tape) => total + tape.undated, 0),
  };
  const report: TapeReport = {
    today,
    tapes,
    totals,
    coverage: counters.coverage(),
    prices: {
      asOf: PRICES_AS_OF,
      sources: [...new Set(PRICE_TABLE.map((entry) => entry.source))],
      fromConfig: [...usedConfig].sort(),
    },
    limits: {
      maxAgeDays: options.ageLimit?.maxAgeDays,
      stale: options.ageLimit?.stale,
      maxCostUsd: options.maxCostUsd,
      maxTokens: options.maxTokens,
    },
    failures: [],
    warnings: [],
  };
  judge(report, unmetered);
  // Every string of the report masked once, here: a model name, a finish reason or a path a tape
  // holds reaches the terminal, --json and the page only as it is here.
  return maskValue(report);
}

function judge(report: TapeReport, unmetered: readonly string[]): void {
  const { totals, limits } = report;
  const budgeted = limits.maxCostUsd !== undefined || limits.maxTokens !== undefined;
  if (unmetered.length > 0) {
    const text = `${unmetered.length} live model answer${unmetered.length === 1 ? '' : 's'} recorded no token usage (first at ${unmetered.slice(0, 3).join(', ')}; an OpenAI stream reports it only with stream_options: { include_usage: true }), so ${unmetered.length === 1 ? 'its' : 'their'} tokens and cost are not counted`;
    if (budgeted) report.failures.push(`${text}: the budget cannot be checked. Record with usage on, or leave these tapes out of the budget.`);
    else report.warnings.push(`${text}.`);
  }
  if (limits.maxCostUsd !== undefined) {
    if (totals.costUsd > limits.maxCostUsd)
      report.failures.push(`re-recording would cost ${usd(totals.costUsd)}, over the budget of ${usd(limits.maxCostUsd)} (--max-cost).`);
    if (totals.unpricedTokens > 0)
      report.failures.push(
        `${totals.unpricedTokens} tokens have no price (${totals.unpriced.join(', ')}), so the cost budget cannot be checked: add ${totals.unpriced.length === 1 ? 'its price' : 'their prices'} under "prices" in modeltape.config.json (USD per million tokens: input, cachedInput, output).`,
      );
  } else if (totals.unpricedTokens > 0) {
    report.warnings.push(
      `${totals.unpricedTokens} tokens have no price (${totals.unpriced.join(', ')}): the cost leaves them out. Add prices under "prices" in modeltape.config.json.`,
    );
  }
  if (limits.maxTokens !== undefined && totals.tokens.total > limits.maxTokens)
    report.failures.push(`the tapes hold ${totals.tokens.total} tokens, over the budget of ${limits.maxTokens} (--max-tokens).`);
  if (budgeted && totals.tokens.total === 0 && unmetered.length === 0)
    report.failures.push('no exchange in these tapes reports its token usage, so the budget checked nothing.');
  for (const tape of report.tapes) {
    if (tape.newest !== undefined && tape.newest > report.today)
      report.warnings.push(
        `${tape.file} holds an exchange recorded on ${tape.newest}, after ${report.today}: a clock that was wrong when it was recorded, or a hand edit.`,
      );
  }
  const stale = report.tapes.filter((tape) => tape.stale !== undefined);
  if (stale.length > 0) {
    const lines = stale.map((tape) => `stale tape ${tape.file}${tape.test === undefined ? '' : ` (${testLabel(tape.test)})`}: ${tape.stale}.`);
    if (limits.stale === 'fail') report.failures.push(...lines);
    else report.warnings.push(...lines);
  }
}

/**
 * An amount of US dollars for people: `$123.45`, `$0.0123`, and under a cent at least two
 * significant digits (`$0.0013`, `$0.000042`), never a `$0.0000` that hides a real cost. JSON
 * keeps the number as it is.
 */
export function usd(amount: number): string {
  if (amount >= 100) return `$${amount.toFixed(2)}`;
  if (amount <= 0 || !Number.isFinite(amount)) return `$${amount === 0 ? '0' : String(amount)}`;
  // Four places, or as many as put two significant digits after the leading zeros.
  const places = Math.min(20, Math.max(4, 1 - Math.floor(Math.log10(amount))));
  return `$${amount.toFixed(places)}`;
}

/** A tape's test as the report shows it: `test/checkout.test.ts › checkout › pays with a card`. */
export function testLabel(test: TapeTest): string {
  return `${test.file} › ${test.name.split(' > ').join(' › ')}`;
}

// Whose prices apply: an Ollama upstream is local whichever API it speaks (its OpenAI-compatible /v1 too).
function providerOfExchange(exchange: Exchange, facts: AnswerFacts): string {
  const upstream = guessProvider(exchange.upstream);
  if (upstream === 'ollama' || facts.api === undefined) return upstream;
  return facts.api.slice(0, facts.api.indexOf('-'));
}

// Bedrock's Converse and InvokeModel are among them (InvokeModel's body is the model's own).
const REPORTED_TURN_APIS: readonly string[] = TURN_APIS;

function isTurn(facts: AnswerFacts): boolean {
  return facts.api !== undefined && REPORTED_TURN_APIS.includes(facts.api);
}

function zero(): TokenTotals {
  return { input: 0, cachedInput: 0, cacheWrite: 0, output: 0, total: 0 };
}

function sum(tokens: TokenCounts): number {
  return tokens.input + tokens.cachedInput + tokens.cacheWrite + tokens.output;
}

function addTokens(total: TokenTotals, tokens: TokenCounts): TokenTotals {
  total.input += tokens.input;
  total.cachedInput += tokens.cachedInput;
  total.cacheWrite += tokens.cacheWrite;
  total.output += tokens.output;
  total.total += sum(tokens);
  return total;
}

// How a report names a client: its user agent, else the AWS SDK's or Google's client header.
function clientLabel(client: Record<string, string> | undefined): string | undefined {
  if (client === undefined) return undefined;
  return client['user-agent'] ?? client['x-amz-user-agent'] ?? client['x-goog-api-client'] ?? Object.values(client)[0];
}

class Counters {
  #endpoints = new Map<string, Seen>();
  #models = new Map<string, Seen>();
  #answeredModels = new Map<string, Seen>();
  #clients = new Map<string, Seen>();
  #behaviours = new Map<Behaviour, Seen>(BEHAVIOURS.map((name) => [name, { name, count: 0, where: [] }]));
  #finishes = new Map<string, Seen>();
  #statuses = new Map<string, Seen>();

  add(exchange: Exchange, facts: AnswerFacts, where: string): void {
    count(this.#endpoints, facts.api ?? `${exchange.request.method} ${exchange.request.path}`, where);
    if (facts.model !== undefined) count(this.#models, facts.model, where);
    const client = clientLabel(exchange.request.client);
    if (client !== undefined) count(this.#clients, client, where);
    const answered =
      facts.status >= 200 && facts.status < 300
        ? (exchange.response.answeredModel ?? answeredModelOf(facts.api, responsePayloads(exchange.response)))
        : undefined;
    if (answered !== undefined) count(this.#answeredModels, answered, where);
    count(this.#statuses, String(facts.status), where);
    const seen = (behaviour: Behaviour): void => count(this.#behaviours, behaviour, where);
    if (facts.status === 429) seen('status-429');
    else if (facts.status >= 400 && facts.status < 500) seen('status-4xx');
    else if (facts.status >= 500) seen('status-5xx');
    if (!isTurn(facts)) return;
    if (facts.structured) seen('structured-output');
    if (facts.status < 200 || facts.status > 299) return;
    if (facts.failed) {
      // A recorded failure: what it shows is the failure, not a model turn that succeeded.
      if (facts.streamError) seen('stream-error');
      if (facts.rawFinish !== undefined) count(this.#finishes, `${facts.api} ${facts.rawFinish}`, where);
      return;
    }
    seen(facts.streamed ? 'streamed' : 'not-streamed');
    if (facts.toolCalls === 1) seen('tool-call');
    if (facts.toolCalls > 1) seen('parallel-tool-calls');
    if (facts.refused) seen('refusal');
    if (facts.rawFinish !== undefined) count(this.#finishes, `${facts.api} ${facts.rawFinish}`, where);
    if (facts.finish === 'stop') seen('finish-stop');
    if (facts.finish === 'tool-calls') seen('finish-tool-calls');
    if (facts.finish === 'length') seen('finish-length');
    if (facts.finish === 'content-filter') seen('finish-content-filter');
  }

  coverage(): TapeReport['coverage'] {
    const behaviours = BEHAVIOURS.map((name) => ({ ...this.#behaviours.get(name)!, name, description: BEHAVIOUR_WORDS[name] }));
    return {
      endpoints: sorted(this.#endpoints),
      models: sorted(this.#models),
      answeredModels: sorted(this.#answeredModels),
      clients: sorted(this.#clients),
      behaviours,
      finishReasons: sorted(this.#finishes),
      statuses: sorted(this.#statuses),
      neverSeen: behaviours.filter((behaviour) => behaviour.count === 0).map((behaviour) => behaviour.name),
    };
  }
}

function count<K>(map: Map<K, Seen>, name: K, where: string): void {
  let seen = map.get(name);
  if (seen === undefined) map.set(name, (seen = { name: String(name), count: 0, where: [] }));
  seen.count++;
  if (seen.where.length < WHERE_KEPT) seen.where.push(where);
}

// Most seen first, then by name: the same tapes give the same order.
function sorted(map: Map<string, Seen>): Seen[] {
  return [...map.values()].sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
