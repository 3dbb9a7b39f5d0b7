import type { ErrorCode } from './error-codes.js';
import { ModeltapeError } from './modeltape-error.js';

/** An option given a value outside its closed set. The message lists the valid values. */
export class InvalidChoiceError extends ModeltapeError {
  readonly option: string;
  readonly value: unknown;
  readonly choices: readonly string[];

  /** `code` defaults to `invalid_choice`; a part whose callers already branch on its own code keeps it. */
  constructor(option: string, value: unknown, choices: readonly string[], code: ErrorCode = 'invalid_choice') {
    super(code, `Invalid ${option} ${JSON.stringify(value)}: expected one of ${choices.join(', ')}`);
    this.option = option;
    this.value = value;
    this.choices = choices;
  }
}

/**
 * Returns `value` typed as one of `choices`, or throws {@link InvalidChoiceError}: the one check
 * every closed set of modes and kinds goes through at its boundary.
 *
 * @example
 * ```ts no-run
 * const mode = checkChoice('proxy mode', options.mode, PROXY_MODES);
 * ```
 */
export function checkChoice<T extends string>(option: string, value: unknown, choices: readonly T[], code?: ErrorCode): T {
  if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
  throw new InvalidChoiceError(option, value, choices, code);
}
