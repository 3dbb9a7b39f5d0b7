/**
 * The base of every error modeltape throws on purpose. `code` is stable across versions, so
 * callers and tests can branch on it; the message is for people and may be reworded.
 */
export class ModeltapeError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
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
  /** JSON access path inside the exchange, e.g. `.request.body.json.messages[0].content`. */
  path: string;
  /** Which rule matched: `openai-key`, `anthropic-key`, `bearer-token`, `google-key`, … */
  rule: string;
  /** The match with its middle masked, safe to print. */
  masked: string;
}

/** An exchange held something shaped like a credential, so it was not written. */
export class SecretInTapeError extends ModeltapeError {
  readonly locations: SecretLocation[];

  constructor(description: string, locations: SecretLocation[]) {
    const lines = locations.slice(0, 5).map((location) => `  at ${location.path}: ${location.rule} ${location.masked}`);
    super(
      'secret_in_tape',
      `Refused to write ${description}: it holds ${locations.length === 1 ? 'a string' : `${locations.length} strings`} shaped like a credential.\n` +
        `${lines.join('\n')}\n` +
        'Secrets never reach a tape. Remove the key from the prompt or response, or use an obviously fake key in tests.',
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
