import type { AskedTurn } from '../providers/internal.js';
import type { Answer, FinishReason } from './answer.js';
import type { Failure } from './failures.js';

/** How a streamed answer is cut into chunks. */
export type Chunking = { pieces: string[] } | { size: number } | 'words';

export interface StepOptions {
  /**
   * How the text (or tool arguments) of a streamed answer is cut: `'words'` (the default: each
   * word with the space before it, the way tokens arrive), `{ size: n }` characters at a time,
   * or `{ pieces: [...] }` exactly (the pieces must join to the text).
   */
  chunks?: Chunking;
  /** Wait this long before answering. @default 0 */
  delayMs?: number;
  /**
   * How the turn ends (see `NEUTRAL_FINISHES`): `'length'`, `'content-filter'`, `'refusal'` (the
   * text is the refusal; on Gemini, a blocked prompt), `'stop-sequence'`, `'pause-turn'`, or a
   * provider's own name where its API uses it (`'max_tokens'`, `'max_output_tokens'`,
   * `'content_filter'`, `'stop_sequence'`, `'pause_turn'`, `'end_turn'`; Gemini's `'MAX_TOKENS'`,
   * `'SAFETY'`, `'RECITATION'`, `'BLOCKLIST'`, `'PROHIBITED_CONTENT'`, `'SPII'`,
   * `'MALFORMED_FUNCTION_CALL'`). A finish the request's API has not is a loud error listing
   * the ones it has. A truncated, filtered or refused answer is not checked against the schema.
   * @default 'stop' (a tool call ends as a tool call)
   */
  finish?: FinishReason;
  /**
   * With `finish: 'stop-sequence'`: which of the request's stop sequences (`stop`,
   * `stop_sequences`, Gemini's `generationConfig.stopSequences`, Ollama's `options.stop`) the
   * model hit. @default the first one the request sent
   */
  stopSequence?: string;
}

/**
 * What a step answers: an answer, a failure, or (OpenAI chat with `n` > 1) one answer per choice.
 */
export type StepAnswer = Answer | { kind: 'failure'; failure: Failure } | { kind: 'choices'; choices: Answer[] };

/** One scripted answer. */
export interface Step {
  answer: StepAnswer;
  options: StepOptions;
  /** How the step was written, for messages: `willSay("Hi")`, `script.jsonl:4`. */
  origin: string;
}

/**
 * Which requests a rule answers:
 * - a predicate over what the turn was shown;
 * - `prompt`: a glob over the rendered prompt (`system: …`, `user: …` lines; `*` matches
 *   anything, newlines included, `?` one character; it must match the whole prompt, so
 *   `*weather*` matches a prompt that mentions weather);
 * - `lastMessage`: a glob over the text of the last message;
 * - `model`: a glob over the model name;
 * - `tools`: names that must all be among the tools offered.
 * Every field given must match.
 */
export type Matcher = ((turn: AskedTurn) => boolean) | { prompt?: string; lastMessage?: string; model?: string; tools?: string[] };

export interface Rule {
  matcher: Matcher;
  /** A sticky rule answers every matching turn; otherwise it answers once. */
  sticky: boolean;
  step: Step;
  uses: number;
  origin: string;
}

/** A turn's scripted answer: from a rule, from the queue, or none. */
export type Pick = { step: Step; rule: Rule | undefined } | undefined;

/**
 * The script: rules first (in the order written; a once-rule is spent when it answers), then
 * the queue of steps, first in first out. It never cycles and never repeats a spent step.
 */
export class Script {
  readonly steps: Step[] = [];
  readonly rules: Rule[] = [];
  #scripted = false;

  /** True once any step or rule was added: from then on, running out is an error. */
  get scripted(): boolean {
    return this.#scripted;
  }

  push(step: Step): void {
    this.#scripted = true;
    this.steps.push(step);
  }

  addRule(rule: Rule): void {
    this.#scripted = true;
    this.rules.push(rule);
  }

  next(turn: AskedTurn): Pick {
    for (const rule of this.rules) {
      if (!rule.sticky && rule.uses > 0) continue;
      if (!matches(rule.matcher, turn)) continue;
      rule.uses++;
      return { step: rule.step, rule };
    }
    const step = this.steps.shift();
    return step === undefined ? undefined : { step, rule: undefined };
  }

  /** Steps still queued and rules never used (sticky ones included): what `assertConsumed` reports. */
  leftovers(): string[] {
    return [
      ...this.steps.map((step) => `step ${step.origin}`),
      ...this.rules.filter((rule) => rule.uses === 0).map((rule) => `${rule.sticky ? 'sticky rule (never matched)' : 'rule'} ${rule.origin}`),
    ];
  }
}

export function matches(matcher: Matcher, turn: AskedTurn): boolean {
  if (typeof matcher === 'function') return matcher(turn);
  if (matcher.prompt !== undefined && !globToRegExp(matcher.prompt).test(turn.prompt)) return false;
  if (matcher.lastMessage !== undefined && !globToRegExp(matcher.lastMessage).test(turn.messages.at(-1)?.text ?? '')) return false;
  if (matcher.model !== undefined && !globToRegExp(matcher.model).test(turn.model)) return false;
  if (matcher.tools !== undefined) {
    const offered = new Set(turn.tools.map((tool) => tool.name));
    if (!matcher.tools.every((name) => offered.has(name))) return false;
  }
  return true;
}

/** `*` matches any run of characters (newlines too), `?` one character; the whole text must match. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const character of glob) {
    if (character === '*') source += '[\\s\\S]*';
    else if (character === '?') source += '[\\s\\S]';
    else source += character.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** How a matcher reads in messages. */
export function describeMatcher(matcher: Matcher): string {
  if (typeof matcher === 'function') return `when(${matcher.name || 'predicate'})`;
  return `when(${JSON.stringify(matcher)})`;
}
