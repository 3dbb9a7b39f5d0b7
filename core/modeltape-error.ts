import type { ErrorCode } from './error-codes.js';
import { maskSecrets } from './secret-scan.js';

const MARKER = Symbol.for('modeltape.error');

/**
 * The base of every error modeltape throws on purpose. Its message never holds a credential:
 * anything key-shaped in it is masked (`[openai-key 44 chars]`), so every message printed,
 * logged or kept in a summary is safe. `code` is stable across versions (one of
 * {@link ERROR_CODES}), so callers and tests can branch on it; the message is for people and may
 * be reworded.
 *
 * @example
 * ```ts no-run
 * catch (error) { if (ModeltapeError.isInstance(error) && error.code === 'replay_miss') … }
 * ```
 */
export class ModeltapeError extends Error {
  readonly code: ErrorCode;
  readonly [MARKER] = true;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(maskSecrets(message), options);
    this.name = new.target.name;
    this.code = code;
  }

  /**
   * True for any modeltape error, also one thrown by another copy of the package (two installed
   * versions, or the CLI's and a test's), where `instanceof` would say no.
   */
  static isInstance(value: unknown): value is ModeltapeError {
    return typeof value === 'object' && value !== null && (value as { [MARKER]?: unknown })[MARKER] === true;
  }
}
