import { type Exchange, type RecordedRequest } from '../recordings/internal.js';
import { type Difference, displayPath, formatDifferences, maskValue, ModeltapeError } from '../core/internal.js';
import type { LookupResult, NearestRecording, ReplayEngine, ReplayEntry } from './replay-engine.js';

/** A request that replay could not answer: never recorded, or called more often than recorded. */
export class ReplayMissError extends ModeltapeError {
  readonly tape: string;
  readonly upstream: string;
  readonly request: RecordedRequest;
  readonly key: string;
  /** `unrecorded`: no exchange has this key. `exhausted`: every recording of it was used. */
  readonly reason: 'unrecorded' | 'exhausted';
  /** For `exhausted`: the 0-based call that found no recording left. */
  readonly call: number | undefined;
  readonly nearest: { line: number | undefined; key: string } | undefined;
  /** The nearest recording itself (its request and response), when there is one. */
  readonly nearestExchange: Exchange | undefined;
  readonly differences: Difference[];
  /** How many leaves differ from the nearest recording in all (`differences` may be cut short). */
  readonly totalDifferences: number;

  constructor(fields: {
    message: string;
    tape: string;
    upstream: string;
    request: RecordedRequest;
    key: string;
    reason: 'unrecorded' | 'exhausted';
    call?: number;
    nearest?: NearestRecording;
  }) {
    super('replay_miss', fields.message);
    this.tape = fields.tape;
    this.upstream = fields.upstream;
    // A miss is printed, kept in summaries and drift reports: what it holds of the request is masked.
    this.request = maskValue(fields.request);
    this.key = fields.key;
    this.reason = fields.reason;
    this.call = fields.call;
    this.nearest = fields.nearest ? { line: fields.nearest.entry.line, key: fields.nearest.entry.exchange.key } : undefined;
    this.nearestExchange = fields.nearest?.entry.exchange;
    this.differences = maskValue(fields.nearest?.differences ?? []);
    this.totalDifferences = fields.nearest?.total ?? 0;
  }
}

/**
 * How a miss tells the user to record or to repeat, where they are: flags on the command line
 * (the default), an environment variable and an option inside a test.
 */
export interface MissAdvice {
  /** @example '--mode auto' or 'MODELTAPE_MODE=auto npx vitest run test/chat.test.ts' */
  record: string;
  /** @example '--repeat last' or "openTape(file, { repeat: 'last' })" */
  repeat: string;
  /** The environment says CI, which only replays: the advice says to record on the developer's machine. */
  ci?: boolean;
}

export const CLI_MISS_ADVICE: MissAdvice = { record: '--mode auto', repeat: '--repeat last' };

/**
 * The one sentence every miss, missing tape and matcher under CI ends with, so CI says it one way:
 * `CI only replays: record it on your machine with …, then commit the tape.`
 */
export function ciRecordAdvice(record: string): string {
  return `CI only replays: record it on your machine with ${record}, then commit the tape.`;
}

/**
 * Builds the error for a lookup that did not hit, with the evidence and the next step:
 * the tape, the key, the nearest recording (file:line) and the first differing JSON paths.
 * `requestPath` is the path the client used (e.g. `/openai/v1/chat/completions`); `describe`
 * names what a request calls where its path does not (an MCP server's `tools/call get_weather`).
 */
export function explainMiss(
  engine: ReplayEngine,
  upstream: string,
  unmasked: RecordedRequest,
  key: string,
  result: Exclude<LookupResult, { kind: 'hit' }>,
  requestPath: string,
  advise: MissAdvice = CLI_MISS_ADVICE,
  describe?: (request: RecordedRequest) => string | undefined,
): ReplayMissError {
  // Masked before it is compared: a key split across strings is one marker in every difference.
  const request = maskValue(unmasked);
  const call = describe?.(request);
  const head = `Failed to replay ${call === undefined ? '' : `${call} (`}${request.method} ${requestPath}${call === undefined ? '' : ')'}`;
  const tape = `${displayPath(engine.file)} (${engine.size} exchange${engine.size === 1 ? '' : 's'}`;
  if (result.kind === 'exhausted') {
    const lines = result.entries.map((entry) => lineOf(engine, entry)).join(', ');
    const count = result.entries.length;
    return new ReplayMissError({
      message:
        `${head}: this request was recorded ${count === 1 ? 'once' : `${count} times`} and this is call ${result.call + 1} (ordinal ${result.call}).\n` +
        `  tape: ${tape}; recorded at ${lines})\n` +
        `  key: ${key}\n` +
        `Identical requests replay their recorded answers in order. ${
          advise.ci === true
            ? `Pass ${advise.repeat} to reuse the last answer. ${ciRecordAdvice(advise.record)}`
            : `Pass ${advise.repeat} to reuse the last answer, or record the extra call with ${advise.record}.`
        }`,
      tape: engine.file,
      upstream,
      request,
      key,
      reason: 'exhausted',
      call: result.call,
      // Called more often than recorded: the nearest is the last recording of the same request.
      ...(result.entries.length > 0 ? { nearest: { entry: result.entries[result.entries.length - 1]!, differences: [], total: 0 } } : {}),
    });
  }
  const nearest = engine.nearest(upstream, request);
  let evidence: string;
  let advice =
    advise.ci === true
      ? `${ciRecordAdvice(advise.record)} If the differing field is volatile, declare a normalizer instead.`
      : `Record it with ${advise.record}, or declare a normalizer if the differing field is volatile.`;
  if (nearest === undefined) {
    const routes = engine.routes().map(({ route, count }) => `${count}× ${route}`);
    evidence = `  tape: ${tape})\n  key: ${key}\n  nothing was recorded for ${request.method} ${request.path} (${upstream}); the tape holds ${routes.length > 0 ? routes.slice(0, 5).join(', ') : 'no exchanges'}`;
  } else {
    const nearestCall = describe?.(nearest.entry.exchange.request);
    evidence = `  tape: ${tape}, nearest at ${lineOf(engine, nearest.entry)}${nearestCall === undefined ? '' : `: ${nearestCall}`})\n  key: ${key}\n`;
    if (nearest.total === 0) {
      evidence += `  the nearest recording has the same method, path, headers and body, but its stored key (${nearest.entry.exchange.key.slice(0, 12)}…) differs: the tape was edited by hand or keyed with other rules.`;
      advice = `Run modeltape rekey ${displayPath(engine.file)} to re-derive its keys (modeltape verify ${displayPath(engine.file)} names the stale ones).`;
    } else {
      evidence += formatDifferences(nearest.differences, nearest.total)
        .map((line) => `  ${line}`)
        .join('\n');
    }
  }
  return new ReplayMissError({
    message: `${head}: no recorded exchange matches.\n${evidence}\n${advice}`,
    tape: engine.file,
    upstream,
    request,
    key,
    reason: 'unrecorded',
    ...(nearest ? { nearest } : {}),
  });
}

function lineOf(engine: ReplayEngine, entry: ReplayEntry): string {
  const file = displayPath(engine.file);
  return entry.line === undefined ? `${file} (recorded by this run)` : `${file}:${entry.line}`;
}
