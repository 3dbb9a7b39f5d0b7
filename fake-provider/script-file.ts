import { readFileSync } from 'node:fs';
import { TapeFormatError, describeSchemaErrors, type TapeProblem } from '../recordings/internal.js';
import { ModeltapeError } from '../core/internal.js';
import { ownSchema } from '../schema/internal.js';
import { FINISH_REASONS, type FinishReason } from './answer.js';
import { FAILURE_KINDS, type Failure } from './failures.js';
import { AZURE_FILTER_CATEGORIES, type AzureFilterCategory } from '../providers/internal.js';
import type { Chunking, Matcher, StepOptions } from './script.js';

/**
 * A FakeProvider script file: JSONL, one step per line, closed schema, `_` notes allowed, like a
 * tape. An optional first line `{"schemaVersion":1,"kind":"modeltape-fake-script"}` says what it is.
 *
 * ```jsonl
 * {"schemaVersion":1,"kind":"modeltape-fake-script","_note":"checkout flow"}
 * {"callTools":[{"name":"get_weather","arguments":{"city":"Paris"}}]}
 * {"say":"It is raining in Paris."}
 * {"when":{"prompt":"*refund*"},"always":true,"say":"Refunds take 5 days."}
 * {"fail":{"kind":"rate-limited","retryAfterMs":0}}
 * {"say":"The answer was cut","finish":"length"}
 * {"say":["Yes.","No."]}
 * ```
 * Each step has exactly one of `say`, `callTools`, `answer`, `fail` (`say` with `callTools` is
 * text before the calls), and may have `chunks`, `delayMs`, `finish` (+ `stopSequence`; see
 * `StepOptions.finish`), and `when` (+ `always`) to be a rule. `say` may be an array of texts, one
 * per choice of an OpenAI chat request with `n`.
 */
export interface ScriptLine {
  when?: { prompt?: string; lastMessage?: string; model?: string; tools?: string[] };
  always?: boolean;
  say?: string | string[];
  callTools?: Array<{ name: string; arguments?: unknown; id?: string }>;
  answer?: unknown;
  fail?: {
    kind: Failure['kind'];
    retryAfterMs?: number | null;
    afterChunks?: number;
    ms?: number;
    message?: string;
    category?: AzureFilterCategory;
    severity?: 'low' | 'medium' | 'high';
  };
  chunks?: Chunking;
  delayMs?: number;
  finish?: FinishReason;
  stopSequence?: string;
}

const notes = { '^_': {} };
const closed = (properties: Record<string, object>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
  patternProperties: notes,
});

const lineSchema = closed({
  when: closed({ prompt: { type: 'string' }, lastMessage: { type: 'string' }, model: { type: 'string' }, tools: { type: 'array', items: { type: 'string' } } }),
  always: { type: 'boolean' },
  say: { anyOf: [{ type: 'string' }, { type: 'array', minItems: 1, items: { type: 'string' } }] },
  callTools: { type: 'array', minItems: 1, items: closed({ name: { type: 'string', minLength: 1 }, arguments: {}, id: { type: 'string' } }, ['name']) },
  answer: {},
  fail: closed(
    {
      kind: { enum: [...FAILURE_KINDS] },
      retryAfterMs: { type: ['integer', 'null'], minimum: 0 },
      afterChunks: { type: 'integer', minimum: 0 },
      ms: { type: 'integer', minimum: 0 },
      message: { type: 'string' },
      category: { enum: [...AZURE_FILTER_CATEGORIES] },
      severity: { enum: ['low', 'medium', 'high'] },
    },
    ['kind'],
  ),
  chunks: {
    anyOf: [
      { const: 'words' },
      closed({ size: { type: 'integer', minimum: 1 } }, ['size']),
      closed({ pieces: { type: 'array', items: { type: 'string' } } }, ['pieces']),
    ],
  },
  delayMs: { type: 'integer', minimum: 0 },
  finish: { enum: [...FINISH_REASONS] },
  stopSequence: { type: 'string' },
});
const headerSchema = closed({ schemaVersion: { const: 1 }, kind: { const: 'modeltape-fake-script' } }, ['schemaVersion', 'kind']);

const lineShape = ownSchema(lineSchema);
const headerShape = ownSchema(headerSchema);

/** One parsed step, ready to add to a FakeProvider. */
export interface ScriptEntry {
  line: number;
  matcher: Matcher | undefined;
  sticky: boolean;
  kind: 'say' | 'callTools' | 'answer' | 'fail';
  value: ScriptLine;
  options: StepOptions;
  failure: Failure | undefined;
}

/** Reads and checks a script file; throws listing every problem with file:line and field. */
export function readFakeScript(file: string): ScriptEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ModeltapeError('script_unreadable', `Could not read FakeProvider script ${file}: ${(error as Error).message}`, { cause: error });
  }
  return parseFakeScript(text, file);
}

export function parseFakeScript(text: string, file: string): ScriptEntry[] {
  const entries: ScriptEntry[] = [];
  const problems: TapeProblem[] = [];
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      problems.push({ file, line, field: '', message: `not valid JSON: ${(error as Error).message}` });
      continue;
    }
    if (line === 1 && typeof value === 'object' && value !== null && 'schemaVersion' in value) {
      const headerErrors = headerShape.errorsOf(value);
      if (headerErrors !== undefined) problems.push(...describeSchemaErrors(headerErrors, file, line, 'script header'));
      continue;
    }
    const lineErrors = lineShape.errorsOf(value);
    if (lineErrors !== undefined) {
      problems.push(...describeSchemaErrors(lineErrors, file, line, 'script step'));
      continue;
    }
    const step = value as ScriptLine;
    const kinds = (['say', 'callTools', 'answer', 'fail'] as const).filter((kind) => step[kind] !== undefined);
    const valid = kinds.length === 1 || (kinds.length === 2 && kinds.includes('say') && kinds.includes('callTools'));
    if (!valid) {
      problems.push({
        file,
        line,
        field: '',
        message: `a step holds exactly one of "say", "callTools", "answer", "fail" ("say" may go with "callTools" as text before the calls); this one holds ${kinds.length === 0 ? 'none' : kinds.join(', ')}`,
      });
      continue;
    }
    if (Array.isArray(step.say) && step.callTools !== undefined) {
      problems.push({ file, line, field: '.say', message: '"say" before "callTools" is one text, not a list of choices' });
      continue;
    }
    if (step.always !== undefined && step.when === undefined) {
      problems.push({ file, line, field: '.always', message: '"always" only applies to a rule: add "when"' });
      continue;
    }
    const options: StepOptions = {};
    if (step.chunks !== undefined) options.chunks = step.chunks;
    if (step.delayMs !== undefined) options.delayMs = step.delayMs;
    if (step.finish !== undefined) options.finish = step.finish;
    if (step.stopSequence !== undefined) options.stopSequence = step.stopSequence;
    entries.push({
      line,
      matcher: step.when,
      sticky: step.always === true,
      kind: kinds.includes('callTools') ? 'callTools' : kinds[0]!,
      value: step,
      options,
      failure: step.fail ? toFailure(step.fail) : undefined,
    });
  }
  if (problems.length > 0) throw new TapeFormatError(problems, 'FakeProvider script');
  return entries;
}

function toFailure(fail: NonNullable<ScriptLine['fail']>): Failure {
  const retryAfterMs = fail.retryAfterMs === undefined ? 0 : fail.retryAfterMs;
  const message = fail.message === undefined ? {} : { message: fail.message };
  switch (fail.kind) {
    case 'rate-limited':
    case 'server-error':
    case 'unavailable':
    case 'overloaded':
      return { kind: fail.kind, retryAfterMs, ...message };
    case 'stream-error':
      return { kind: 'stream-error', afterChunks: fail.afterChunks ?? 1, ...message };
    case 'drop-connection':
      return { kind: 'drop-connection', afterChunks: fail.afterChunks ?? 0 };
    case 'delay':
      return { kind: 'delay', ms: fail.ms ?? 0 };
    case 'hang':
      return { kind: 'hang' };
    case 'content-filter':
      return { kind: 'content-filter', category: fail.category ?? 'hate', ...(fail.severity === undefined ? {} : { severity: fail.severity }), ...message };
  }
}
