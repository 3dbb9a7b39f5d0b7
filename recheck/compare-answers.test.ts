import { describe, expect, test } from 'vitest';
import type { AnswerBehaviour } from './answer-behaviour.js';
import { compareAnswers } from './compare-answers.js';

const base: AnswerBehaviour = {
  status: 200,
  finish: 'stop',
  rawFinish: 'stop',
  refused: false,
  failed: false,
  text: 'It is raining.',
  toolCalls: [],
  structured: undefined,
  answeredModel: 'gpt-4o-2024-08-06',
  usage: { input: 10, cachedInput: 0, cacheWrite: 0, output: 5 },
  errorMessage: undefined,
  problem: undefined,
};
const calling = (args: Record<string, unknown>, name = 'get_weather'): AnswerBehaviour => ({
  ...base,
  finish: 'tool-calls',
  rawFinish: 'tool_calls',
  text: null,
  toolCalls: [{ name, args: args as never }],
});

describe('compareAnswers', () => {
  test('the same answer with other usage and another model version is identical', () => {
    expect(compareAnswers(base, { ...base, usage: { input: 99, cachedInput: 0, cacheWrite: 0, output: 1 }, answeredModel: 'gpt-4o-2024-11-20' })).toEqual({
      verdict: 'identical',
      reasons: [],
    });
  });

  test('other text, nothing else, is equivalent', () => {
    expect(compareAnswers(base, { ...base, text: 'Rain.' })).toEqual({ verdict: 'equivalent', reasons: ['.text: "It is raining." → "Rain."'] });
  });

  test("a tool argument's value, or a new argument, is changed", () => {
    expect(compareAnswers(calling({ city: 'Paris' }), calling({ city: 'Lyon' }))).toEqual({
      verdict: 'changed',
      reasons: ['.toolCalls[0].args.city: "Paris" → "Lyon"'],
    });
    expect(compareAnswers(calling({ city: 'Paris' }), calling({ city: 'Paris', units: 'metric' })).reasons).toEqual([
      '.toolCalls[0].args.units: added "metric"',
    ]);
  });

  test('a tool call that became text, or another tool, is a regression', () => {
    const toText = compareAnswers(calling({ city: 'Paris' }), base);
    expect(toText.verdict).toBe('regression');
    expect(toText.reasons).toEqual(['.finish: "tool_calls" → "stop"', '.toolCalls: get_weather → text', '.text: none → "It is raining."']);
    expect(compareAnswers(calling({ city: 'Paris' }), calling({ city: 'Paris' }, 'get_time')).reasons).toEqual([
      '.toolCalls[0].name: "get_weather" → "get_time"',
    ]);
  });

  test('a finish that changed, a refusal, an error status and the provider’s failure are regressions', () => {
    expect(compareAnswers(base, { ...base, finish: 'length', rawFinish: 'length' })).toEqual({
      verdict: 'regression',
      reasons: ['.finish: "stop" → "length"'],
    });
    expect(compareAnswers(base, { ...base, refused: true, finish: 'refusal', rawFinish: 'stop' }).reasons).toContain('.refused: the model now refuses');
    expect(compareAnswers(base, { ...base, status: 404, errorMessage: 'The model `gpt-4-0314` does not exist' })).toEqual({
      verdict: 'regression',
      reasons: ['.status: 200 → 404 (the model or endpoint no longer exists): The model `gpt-4-0314` does not exist'],
    });
    expect(compareAnswers(base, { ...base, failed: true }).verdict).toBe('regression');
  });

  test('structured output: another value is changed, the same value written otherwise equivalent, an invalid one a regression', () => {
    const report = (value: Record<string, unknown>, problems: string[] = []): AnswerBehaviour => ({
      ...base,
      text: JSON.stringify(value),
      structured: { value: value as never, problems },
    });
    expect(compareAnswers(report({ celsius: 4 }), report({ celsius: 5 }))).toEqual({
      verdict: 'changed',
      reasons: ['.structured.celsius: 4 → 5', '.text: "{\\"celsius\\":4}" → "{\\"celsius\\":5}"'],
    });
    expect(compareAnswers(report({ celsius: 4 }), { ...report({ celsius: 4 }), text: '{ "celsius": 4 }' })).toEqual({
      verdict: 'equivalent',
      reasons: ['.text: the same structured output, written differently'],
    });
    expect(compareAnswers(report({ celsius: 4 }), report({ celsius: 'cold' }, ['.celsius: must be number'])).reasons[0]).toBe(
      ".structured: no longer valid against the request's schema: .celsius: must be number",
    );
  });
});
