import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { LoadedExchange } from '../recordings/internal.js';
import { chooseMutants, type TapeToMutate } from './choose-mutants.js';
import { MUTATION_OPERATORS } from './mutation.js';
import { recordedExchange } from './operators/check-mutation.js';
import { mutationsOf } from './operators/index.js';

const fixture = (name: string): string => readFileSync(new URL(`../test/fixtures/mutation/openai/${name}`, import.meta.url), 'utf8');
const chat = (content: string, file: string): LoadedExchange['exchange'] =>
  recordedExchange({
    upstream: 'openai',
    path: '/v1/chat/completions',
    request: { model: 'gpt-4.1-nano', messages: [{ role: 'user', content }] },
    body: fixture(file),
  });
const embedding = recordedExchange({
  upstream: 'openai',
  path: '/v1/embeddings',
  request: { model: 'text-embedding-3-small', input: 'hi' },
  body: JSON.stringify({
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
    model: 'text-embedding-3-small',
    usage: { prompt_tokens: 1, total_tokens: 1 },
  }),
});

const tape: TapeToMutate = {
  file: 'tapes/a.jsonl',
  exchanges: [
    { exchange: chat('one', 'chat-completion.json'), line: 2 },
    { exchange: chat('two', 'chat-completion.json'), line: 3 },
    { exchange: embedding, line: 4 },
    { exchange: chat('four', 'chat-completion.json'), line: 5 },
  ],
  used: new Set([2, 3, 4]),
};

describe('chooseMutants', () => {
  test('mutates only what the suite used: every mutation of each used exchange, in tape order, numbered', () => {
    const choice = chooseMutants([tape], { seed: '1' });
    const perExchange = mutationsOf(tape.exchanges[0]!.exchange).length;
    expect(perExchange).toBeGreaterThan(5);
    expect(choice.candidates).toBe(2 * perExchange);
    expect(choice.mutants.map((mutant) => mutant.line)).toEqual([...Array<number>(perExchange).fill(2), ...Array<number>(perExchange).fill(3)]);
    expect(choice.mutants.map((mutant) => mutant.id)).toEqual(choice.mutants.map((_, index) => `m${index + 1}`));
    expect(choice.unusedExchanges).toBe(1);
    // The embedding was used, and no operator applies to it.
    expect(choice.unmutable).toBe(1);
    expect(choice.mutants[0]).toMatchObject({ tape: 'tapes/a.jsonl', endpoint: 'POST /v1/chat/completions (openai)' });
  });

  test('under --max the seed chooses, each operator in turn, and the same seed chooses the same', () => {
    const operators = new Set(mutationsOf(tape.exchanges[0]!.exchange).map((mutation) => mutation.operator));
    const pick = (seed: string, max: number) =>
      chooseMutants([tape], { seed, max }).mutants.map((mutant) => `${mutant.line} ${mutant.mutation.operator} ${mutant.mutation.variant}`);
    const first = pick('a', operators.size);
    expect(first).toHaveLength(operators.size);
    // One of each operator before any operator twice.
    expect(new Set(first.map((id) => id.split(' ')[1])).size).toBe(operators.size);
    expect(pick('a', operators.size)).toEqual(first);
    // The same operators, other exchanges for some: another seed draws other mutants.
    const seeds = ['b', 'c', 'd', 'e'].map((seed) => pick(seed, operators.size).join('\n'));
    expect(seeds.some((chosen) => chosen !== first.join('\n'))).toBe(true);
    // Still in tape order.
    const lines = chooseMutants([tape], { seed: 'a', max: 5 }).mutants.map((mutant) => mutant.line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  test('--operators keeps only those; an operator no exchange admits leaves nothing', () => {
    const choice = chooseMutants([tape], { seed: '1', operators: ['text-negated', 'rate-limited'] });
    expect(new Set(choice.mutants.map((mutant) => mutant.mutation.operator))).toEqual(new Set(['text-negated', 'rate-limited']));
    expect(chooseMutants([tape], { seed: '1', operators: ['tool-calls-reordered'] }).mutants).toEqual([]);
    expect(MUTATION_OPERATORS).toContain('tool-calls-reordered');
  });
});
