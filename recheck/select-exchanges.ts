// Which recorded exchanges a recheck sends again: model turns only, never a recorded failure or
// refusal unless asked, and a deterministic sample of them when asked for one.
import { TURN_APIS } from '../providers/internal.js';
import type { LoadedExchange } from '../recordings/internal.js';
import { answerFacts, type AnswerFacts } from '../tape-report/internal.js';

/** One recorded exchange, where it is. */
export interface TapeExchange {
  tape: string;
  /** 1-based line in the tape. */
  line: number;
  exchange: LoadedExchange['exchange'];
  facts: AnswerFacts;
}

/** An exchange a recheck leaves alone, and why. */
export interface Skipped {
  tape: string;
  line: number;
  reason: string;
}

export interface SelectOptions {
  /** Send again exchanges whose recorded answer was a failure, a refusal or a non-2xx status. @default false */
  includeFailures?: boolean;
  /** Check only this many, chosen from `seed`. */
  sample?: number;
  /** What the sample is chosen from: the same seed and tapes choose the same exchanges. @default '0' */
  seed?: string;
}

/** The exchanges to send again, in tape order, and the ones left alone with why. */
export function selectExchanges(
  tapes: ReadonlyArray<{ file: string; exchanges: readonly LoadedExchange[] }>,
  options: SelectOptions = {},
): { selected: TapeExchange[]; skipped: Skipped[] } {
  const candidates: TapeExchange[] = [];
  const skipped: Skipped[] = [];
  for (const tape of tapes) {
    for (const { exchange, line } of tape.exchanges) {
      const facts = answerFacts(exchange);
      const where = { tape: tape.file, line };
      if (facts.api === undefined || !(TURN_APIS as readonly string[]).includes(facts.api) || facts.api === 'openai-realtime') {
        skipped.push({ ...where, reason: `not a model turn (${exchange.request.method} ${exchange.request.path})` });
        continue;
      }
      const failure =
        facts.status < 200 || facts.status > 299
          ? `its recorded answer was status ${facts.status}`
          : facts.failed
            ? 'its recorded answer was the provider’s failure'
            : facts.refused
              ? 'its recorded answer was a refusal'
              : undefined;
      if (failure !== undefined && options.includeFailures !== true) {
        skipped.push({ ...where, reason: `${failure} (add --include-failures to send it again)` });
        continue;
      }
      candidates.push({ ...where, exchange, facts });
    }
  }
  if (options.sample === undefined || options.sample >= candidates.length) return { selected: candidates, skipped };
  const random = seededRandom(options.seed ?? '0');
  // A partial Fisher–Yates shuffle picks the sample; it is then put back in tape order.
  const order = candidates.map((_, index) => index);
  for (let index = 0; index < options.sample; index++) {
    const pick = index + Math.floor(random() * (order.length - index));
    [order[index], order[pick]] = [order[pick]!, order[index]!];
  }
  const chosen = new Set(order.slice(0, options.sample));
  for (const [index, candidate] of candidates.entries())
    if (!chosen.has(index)) skipped.push({ tape: candidate.tape, line: candidate.line, reason: `not in the sample (--sample ${options.sample})` });
  return { selected: candidates.filter((_, index) => chosen.has(index)), skipped };
}

// mulberry32, seeded from the seed's FNV-1a hash: the same seed gives the same numbers everywhere.
function seededRandom(seed: string): () => number {
  let state = 0x811c9dc5;
  for (const char of seed) state = Math.imul(state ^ char.codePointAt(0)!, 0x01000193) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
