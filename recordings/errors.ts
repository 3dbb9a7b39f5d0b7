import { ModeltapeError, type SecretLocation } from '../core/internal.js';

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
