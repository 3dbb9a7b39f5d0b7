import { maskSecrets } from './secret-scan.js';

/**
 * The base of every error modeltape throws on purpose. Its message never holds a credential:
 * anything key-shaped in it is masked (`[openai-key 44 chars]`), so every message printed,
 * logged or kept in a summary is safe. `code` is stable across versions, so
 * callers and tests can branch on it; the message is for people and may be reworded.
 */
export class ModeltapeError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(maskSecrets(message), options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** One problem found in a tape line, addressed by file, line and field. */
export interface TapeProblem {
  file: string;
  line: number;
  /** The field in JSON access syntax, e.g. `.request.bodySha256`; empty for the whole line. */
  field: string;
  message: string;
}

/** A tape that does not follow the format. Lists every problem found, each with file:line. */
export class TapeFormatError extends ModeltapeError {
  readonly problems: TapeProblem[];

  /** `subject` names what was read: a tape by default, or e.g. a FakeProvider script. */
  constructor(problems: TapeProblem[], subject = 'tape') {
    const shown = problems.slice(0, 10).map((problem) => `  ${problem.file}:${problem.line}: ${problem.message}`);
    if (problems.length > shown.length) shown.push(`  … and ${problems.length - shown.length} more`);
    super(
      subject === 'tape' ? 'tape_format' : 'file_format',
      `Invalid ${subject}: ${problems.length} problem${problems.length === 1 ? '' : 's'}.\n${shown.join('\n')}\n` +
        (subject === 'tape' ? 'Fix the lines named above, or run `modeltape verify FILE` for the full list.' : 'Fix the lines named above.'),
    );
    this.problems = problems;
  }
}

/** Where a key-shaped string was found in an exchange that was about to be written. */
export interface SecretLocation {
  /**
   * JSON access path inside the exchange, e.g. `.request.body.json.messages[0].content`,
   * `.request.query[0][1]`, `.response.body.base64 (decoded)`; a key used as a property name is
   * masked in it.
   */
  path: string;
  /** Which rule matched: `openai-key`, `anthropic-key`, `bearer-token`, `google-key`, … (see SECRET_RULES). */
  rule: string;
  /** The marker that stands for it, e.g. `[openai-key 44 chars]`: its kind and size, never any part of it. */
  masked: string;
}

/** An exchange held something shaped like a credential, so it was not written. */
export class SecretInTapeError extends ModeltapeError {
  readonly locations: SecretLocation[];

  constructor(description: string, locations: SecretLocation[]) {
    const lines = locations.slice(0, 5).map((location) => `  at ${location.path}: ${location.masked}`);
    if (locations.length > lines.length) lines.push(`  … and ${locations.length - lines.length} more`);
    super(
      'secret_in_tape',
      `Refused to write ${description}: it holds ${locations.length === 1 ? 'a string' : `${locations.length} strings`} shaped like a credential.\n` +
        `${lines.join('\n')}\n` +
        'Secrets never reach a tape (the client still got its answer). Remove the key from the prompt, path or response, or use an obviously fake key that is not shaped like a real one in tests.',
    );
    this.locations = locations;
  }
}

/** An option given a value outside its closed set. The message lists the valid values. */
export class InvalidChoiceError extends ModeltapeError {
  readonly option: string;
  readonly value: unknown;
  readonly choices: readonly string[];

  constructor(option: string, value: unknown, choices: readonly string[]) {
    super('invalid_choice', `Invalid ${option} ${JSON.stringify(value)}: expected one of ${choices.join(', ')}`);
    this.option = option;
    this.value = value;
    this.choices = choices;
  }
}

/** Returns `value` typed as one of `choices`, or throws {@link InvalidChoiceError}. */
export function checkChoice<T extends string>(option: string, value: unknown, choices: readonly T[]): T {
  if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
  throw new InvalidChoiceError(option, value, choices);
}
