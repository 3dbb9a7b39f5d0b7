import { describe, expect, test } from 'vitest';
import { SecretInTapeError, TapeFormatError, type TapeProblem } from './errors.js';
import { InvalidChoiceError, ModeltapeError, checkChoice } from '../core/internal.js';

describe('ModeltapeError', () => {
  test('carries a stable code, its subclass name and a cause', () => {
    const cause = new Error('disk full');
    const error = new ModeltapeError('tape_unreadable', 'Could not read', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('tape_unreadable');
    expect(error.name).toBe('ModeltapeError');
    expect(error.cause).toBe(cause);
    expect(new TapeFormatError([]).name).toBe('TapeFormatError');
  });
});

describe('TapeFormatError', () => {
  test('shows the first ten problems with file:line and counts the rest', () => {
    const problems: TapeProblem[] = Array.from({ length: 13 }, (_, index) => ({
      file: 't.jsonl',
      line: index + 2,
      field: '.key',
      message: `problem ${index}`,
    }));
    const error = new TapeFormatError(problems);
    expect(error.code).toBe('tape_format');
    expect(error.problems).toBe(problems);
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('Invalid tape: 13 problems.');
    expect(lines.slice(1, 11)).toEqual(problems.slice(0, 10).map((problem) => `  t.jsonl:${problem.line}: ${problem.message}`));
    expect(lines[11]).toBe('  … and 3 more');
    expect(lines[12]).toBe('Fix the lines named above, or run `modeltape verify FILE` for the full list.');
  });

  test('says "problem" for one', () => {
    expect(new TapeFormatError([{ file: 'a', line: 1, field: '', message: 'm' }]).message.startsWith('Invalid tape: 1 problem.\n')).toBe(true);
  });
});

describe('SecretInTapeError', () => {
  test('lists at most five locations with their rules', () => {
    const locations = Array.from({ length: 7 }, (_, index) => ({
      path: `.request.body.json.messages[${index}].content`,
      rule: 'openai-key',
      masked: '[openai-key 40 chars]',
    }));
    const error = new SecretInTapeError('POST /v1/chat/completions (openai) to t.jsonl', locations);
    expect(error.code).toBe('secret_in_tape');
    expect(error.locations).toBe(locations);
    expect(error.message).toContain('Refused to write POST /v1/chat/completions (openai) to t.jsonl: it holds 7 strings shaped like a credential.');
    expect(error.message.match(/^ {2}at /gm)).toHaveLength(5);
    expect(error.message).toContain('  at .request.body.json.messages[0].content: [openai-key 40 chars]');
    expect(error.message).toContain('  … and 2 more');
  });
});

describe('checkChoice', () => {
  test('returns a valid choice as is', () => {
    expect(checkChoice('repeat policy', 'last', ['none', 'last'])).toBe('last');
  });

  test('refuses anything else with the list of valid values', () => {
    for (const value of ['Last', '', 3, undefined]) {
      let caught: unknown;
      try {
        checkChoice('proxy mode', value, ['replay', 'record', 'auto', 'passthrough']);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidChoiceError);
      expect((caught as InvalidChoiceError).code).toBe('invalid_choice');
      expect((caught as InvalidChoiceError).value).toBe(value);
      expect((caught as Error).message).toBe(`Invalid proxy mode ${JSON.stringify(value)}: expected one of replay, record, auto, passthrough`);
    }
  });
});
