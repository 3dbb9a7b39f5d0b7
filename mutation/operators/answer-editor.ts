// What every wire API's operators share: an answer seen as its text pieces and its tool calls,
// each API saying how to write a changed text or changed calls back into its own body or frames,
// and the one place that turns those edits into the mutations, in a fixed order.
import { isRecord, parseJson } from '../../core/internal.js';
import type { AskedTurn, Provider } from '../../providers/internal.js';
import type { RecordedResponse } from '../../recordings/internal.js';
import { MUTATION_OPERATORS, type Mutation, type MutationOperator } from '../mutation.js';
import { FAILURE_OPERATORS, failureResponse } from './failures.js';
import { renderLike } from './json-text.js';
import { changeFirstNumber, negateText, spreadText, type TextEdit } from './text-edits.js';
import { fieldsRemoved, fieldsRetyped, firstArgumentChanged, type ValueEdit } from './value-edits.js';

/** At most this many tool calls of one answer get their own mutations (changed, dropped, renamed). */
export const MAX_CALLS = 3;

/** One tool call as an answer carries it. */
export interface ToolCall {
  /** The call's id (`call_…`, `toolu_…`), when the API gives one. */
  id: string | undefined;
  name: string;
  /** The arguments, parsed (undefined when their text is not JSON). */
  args: unknown;
  /** The arguments as the JSON text the API sends (OpenAI); undefined where they are an object (Anthropic, Gemini, Ollama). */
  argsText: string | undefined;
}

/** A change an API makes in its own words, and what the report shows of it. */
export interface Change {
  response: RecordedResponse;
  before: string;
  after: string;
}

/** One answer of one wire API, as the shared operators change it. */
export interface AnswerEditor {
  provider: Provider;
  /** The answer text as its pieces, in order: a plain body's text parts, a stream's text deltas; empty when the answer has no text. */
  texts: string[];
  /** The answer with these pieces in place of `texts` (as many). */
  withTexts(texts: string[]): RecordedResponse;
  calls: ToolCall[];
  /**
   * The answer with these calls, at most as many as `calls`, each written where the call of its
   * position was (so a stream keeps its indexes); those past the end are taken out.
   */
  withCalls(calls: ToolCall[]): RecordedResponse;
  finishLength?(): Change | undefined;
  finishContentFilter?(): Change | undefined;
  refusal?(): Change | undefined;
  /** A stream without its finishing event(s). */
  truncated?(): Change | undefined;
  /** A stream breaking off with the provider's error event. */
  streamError?(): Change | undefined;
}

/** Every mutation the answer admits, ordered as {@link MUTATION_OPERATORS}, then by variant as found. */
export function mutationsOfAnswer(editor: AnswerEditor, turn: AskedTurn | undefined, recorded: RecordedResponse): Mutation[] {
  const mutations: Mutation[] = [...textMutations(editor), ...toolMutations(editor, turn)];
  const finishes: Array<[MutationOperator, (() => Change | undefined) | undefined]> = [
    ['finish-length', editor.finishLength],
    ['finish-content-filter', editor.finishContentFilter],
    ['refusal', editor.refusal],
    ['stream-truncated', editor.truncated],
    ['stream-error', editor.streamError],
  ];
  for (const [operator, make] of finishes) {
    const change = make?.call(editor);
    if (change !== undefined) mutations.push({ operator, variant: '', description: describeChange(operator, change), ...change });
  }
  for (const { operator, kind } of FAILURE_OPERATORS) {
    const response = failureResponse(editor.provider, kind, recorded);
    mutations.push({
      operator,
      variant: '',
      description: `answered ${response.status} (${kind}) in place of the recorded ${recorded.status}`,
      before: `${recorded.status}`,
      after: `${response.status} ${JSON.stringify((response.body as { json: unknown }).json)}`,
      response,
    });
  }
  const rank = (operator: MutationOperator): number => MUTATION_OPERATORS.indexOf(operator);
  // A stable sort: the variants of one operator keep the order they were found in.
  return mutations.sort((left, right) => rank(left.operator) - rank(right.operator));
}

function textMutations(editor: AnswerEditor): Mutation[] {
  if (editor.texts.length === 0) return [];
  const whole = editor.texts.join('');
  const mutations: Mutation[] = [];
  const withText = (next: string): RecordedResponse => editor.withTexts(spreadText(editor.texts, next));
  const structured = parseJson(whole);
  if (!isRecord(structured)) {
    const negated = negateText(whole);
    if (negated !== undefined) mutations.push(textMutation('text-negated', whole, negated, withText(negated.text)));
  }
  if (whole !== '') {
    mutations.push({
      operator: 'text-emptied',
      variant: '',
      description: `text emptied (was ${whole.length} characters)`,
      before: whole,
      after: '',
      response: withText(''),
    });
  }
  if (!isRecord(structured)) {
    const changed = changeFirstNumber(whole);
    if (changed !== undefined) mutations.push(textMutation('number-changed', whole, changed, withText(changed.text)));
    return mutations;
  }
  const field = (operator: MutationOperator, edit: ValueEdit): Mutation => {
    const next = renderLike(whole, edit.value);
    const what =
      operator === 'field-removed'
        ? `${edit.path} removed (was ${JSON.stringify(edit.before)})`
        : `${edit.path} ${JSON.stringify(edit.before)} → ${JSON.stringify(edit.after)}`;
    return { operator, variant: edit.path, description: `structured output ${what}`, before: whole, after: next, response: withText(next) };
  };
  for (const edit of fieldsRemoved(structured)) mutations.push(field('field-removed', edit));
  for (const edit of fieldsRetyped(structured)) mutations.push(field('field-retyped', edit));
  return mutations;
}

function textMutation(operator: MutationOperator, whole: string, edit: TextEdit, response: RecordedResponse): Mutation {
  const shown = window(whole, edit.text);
  return { operator, variant: '', description: `text ${JSON.stringify(edit.before)} → ${JSON.stringify(edit.after)}`, ...shown, response };
}

function toolMutations(editor: AnswerEditor, turn: AskedTurn | undefined): Mutation[] {
  const { calls } = editor;
  const mutations: Mutation[] = [];
  const listed = (list: ToolCall[]): string => list.map(callText).join('\n');
  calls.slice(0, MAX_CALLS).forEach((call, index) => {
    const variant = `call ${index + 1}`;
    const edit = firstArgumentChanged(call.args);
    if (edit === undefined) return;
    const changed: ToolCall = { ...call, args: edit.value, argsText: call.argsText === undefined ? undefined : renderLike(call.argsText, edit.value) };
    mutations.push({
      operator: 'tool-argument-changed',
      variant,
      description: `${call.name}'s ${edit.path} ${JSON.stringify(edit.before)} → ${JSON.stringify(edit.after)}`,
      before: callText(call),
      after: callText(changed),
      response: editor.withCalls(calls.map((other, position) => (position === index ? changed : other))),
    });
  });
  calls.slice(0, MAX_CALLS).forEach((call, index) => {
    const rest = calls.filter((_, position) => position !== index);
    mutations.push({
      operator: 'tool-call-dropped',
      variant: `call ${index + 1}`,
      description: `${call.name} call ${index + 1} of ${calls.length} dropped${call.id === undefined ? '' : ` (${call.id})`}`,
      before: listed(calls),
      after: listed(rest),
      response: editor.withCalls(rest),
    });
  });
  const offered = (turn?.tools ?? []).map((tool) => tool.name);
  calls.slice(0, MAX_CALLS).forEach((call, index) => {
    const name = offered.find((other) => other !== call.name) ?? `not_${call.name}`;
    const renamed: ToolCall = { ...call, name };
    mutations.push({
      operator: 'tool-renamed',
      variant: `call ${index + 1}`,
      description: `call ${index + 1} names ${name} in place of ${call.name}${offered.includes(name) ? '' : ' (a tool the request did not offer)'}`,
      before: callText(call),
      after: callText(renamed),
      response: editor.withCalls(calls.map((other, position) => (position === index ? renamed : other))),
    });
  });
  if (calls.length >= 2) {
    const reversed = [...calls].reverse();
    mutations.push({
      operator: 'tool-calls-reordered',
      variant: '',
      description: `the ${calls.length} tool calls in reverse order (${reversed.map((call) => call.name).join(', ')})`,
      before: listed(calls),
      after: listed(reversed),
      response: editor.withCalls(reversed),
    });
  }
  return mutations;
}

function callText(call: ToolCall): string {
  return `${call.name}(${call.argsText ?? JSON.stringify(call.args)})`;
}

function describeChange(operator: MutationOperator, change: Change): string {
  switch (operator) {
    case 'stream-truncated':
      return `the stream ends before its finish: ${change.after}`;
    case 'stream-error':
      return `the stream breaks off with an error event: ${change.after}`;
    default:
      return `${change.before} → ${change.after}`;
  }
}

// The part of a long text around what changed, so a report shows the change and not the whole answer.
const CONTEXT = 60;
function window(before: string, after: string): { before: string; after: string } {
  if (before.length <= 2 * CONTEXT && after.length <= 2 * CONTEXT) return { before, after };
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let tail = 0;
  while (tail < before.length - start && tail < after.length - start && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const from = Math.max(0, start - CONTEXT);
  const cut = (text: string): string => {
    const to = Math.min(text.length, text.length - tail + CONTEXT);
    return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
  };
  return { before: cut(before), after: cut(after) };
}
