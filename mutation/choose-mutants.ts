// Which mutants a run tries: every mutation of every exchange the suite used, filtered by operator,
// and when there are more than `max`, a choice from the seed that takes each operator in turn, so
// a small run still tries every kind of change. The same tapes, seed and bounds give the same mutants.
import { hash } from 'node:crypto';
import { describeExchange, type LoadedExchange } from '../recordings/internal.js';
import { MUTATION_OPERATORS, type Mutation, type MutationOperator } from './mutation.js';
import { mutationsOf } from './operators/index.js';

/** A tape offered for mutation: its exchanges, and which of them the suite's run on the real tapes used. */
export interface TapeToMutate {
  /** The tape as the user named it (what reports show). */
  file: string;
  exchanges: readonly LoadedExchange[];
  /** The tape lines the suite answered from; only these are mutated (a change nobody reads tests nothing). */
  used: ReadonlySet<number>;
  /** Exchanges of the tape left out of `exchanges` because the suite never used them: counted as unused. @default 0 */
  unread?: number;
}

/** One mutant: a tape with one change to the exchange at one line. */
export interface Mutant {
  /** `m1`, `m2`…, in tape order. */
  id: string;
  tape: string;
  line: number;
  /** `POST /v1/chat/completions` on its upstream. */
  endpoint: string;
  mutation: Mutation;
}

export interface MutantChoice {
  mutants: Mutant[];
  /** Every mutation the used exchanges admit under the operators asked for. */
  candidates: number;
  /** Exchanges of the tapes the suite never used, so not mutated. */
  unusedExchanges: number;
  /** Used exchanges no operator applies to (embeddings, model lists, recorded errors). */
  unmutable: number;
}

export interface ChooseOptions {
  seed: string;
  /** At most this many mutants. @default all */
  max?: number;
  /** Only these operators. @default all */
  operators?: readonly MutationOperator[];
}

export function chooseMutants(tapes: readonly TapeToMutate[], options: ChooseOptions): MutantChoice {
  const operators = new Set(options.operators ?? MUTATION_OPERATORS);
  const candidates: Array<Omit<Mutant, 'id'> & { rank: string; order: number }> = [];
  let unusedExchanges = 0;
  let unmutable = 0;
  for (const tape of tapes) {
    unusedExchanges += tape.unread ?? 0;
    for (const loaded of tape.exchanges) {
      const { line } = loaded;
      // An unused exchange is not parsed (a lazily read tape parses a line on first use).
      if (!tape.used.has(line)) {
        unusedExchanges++;
        continue;
      }
      const { exchange } = loaded;
      const mutations = mutationsOf(exchange).filter((mutation) => operators.has(mutation.operator));
      if (mutations.length === 0) unmutable++;
      for (const mutation of mutations) {
        candidates.push({
          tape: tape.file,
          line,
          endpoint: describeExchange(exchange),
          mutation,
          // Ranked by the seed and what the mutant is, not by where the tape lies on disk.
          rank: hash('sha256', [options.seed, exchange.key, exchange.ordinal, mutation.operator, mutation.variant].join('\u0000'), 'hex'),
          order: candidates.length,
        });
      }
    }
  }
  let chosen = candidates;
  if (options.max !== undefined && options.max < candidates.length) {
    // Each operator's candidates by rank; then one of each operator in turn until max.
    const byOperator = new Map<MutationOperator, typeof candidates>();
    for (const candidate of candidates) {
      const group = byOperator.get(candidate.mutation.operator) ?? [];
      group.push(candidate);
      byOperator.set(candidate.mutation.operator, group);
    }
    const queues = MUTATION_OPERATORS.map((operator) =>
      (byOperator.get(operator) ?? []).sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0)),
    ).filter((queue) => queue.length > 0);
    chosen = [];
    for (let round = 0; chosen.length < options.max; round++)
      for (const queue of queues) {
        if (chosen.length === options.max) break;
        if (round < queue.length) chosen.push(queue[round]!);
      }
    chosen.sort((a, b) => a.order - b.order);
  }
  return {
    mutants: chosen.map(({ rank: _rank, order: _order, ...mutant }, index) => ({ id: `m${index + 1}`, ...mutant })),
    candidates: candidates.length,
    unusedExchanges,
    unmutable,
  };
}
