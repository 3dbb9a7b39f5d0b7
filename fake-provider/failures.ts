import type { AzureFilterHit } from '../providers/internal.js';

/**
 * Ways a turn can fail, each answered the way the provider really fails:
 * - `rateLimited`: 429 with `retry-after-ms` (OpenAI `rate_limit_exceeded`, Anthropic `rate_limit_error`);
 * - `serverError`: 500 (`server_error` / `api_error`);
 * - `unavailable`: 503;
 * - `overloaded`: Anthropic's 529 `overloaded_error` (OpenAI surfaces answer 503 `server_is_overloaded`);
 * - `streamError`: a 200 stream that sends `afterChunks` chunks, then the provider's error event;
 * - `dropConnection`: the connection closes without a word (after `afterChunks` chunks of a stream);
 * - `delay`: the answer starts `ms` later (and is the unscripted answer for the turn);
 * - `hang`: no answer at all, until the client gives up;
 * - `contentFilter`: Azure OpenAI's content filter blocks the prompt: a 400 with `code:
 *   "content_filter"` and an `innererror` naming the category (Azure OpenAI routes only).
 *
 * Retryable failures send `retry-after-ms: 0` by default so SDK retries are immediate; pass
 * `retryAfterMs: null` to leave the header out, as a real provider does on a 5xx.
 */
export type Failure =
  | { kind: 'rate-limited'; retryAfterMs: number | null; message?: string }
  | { kind: 'server-error'; retryAfterMs: number | null; message?: string }
  | { kind: 'unavailable'; retryAfterMs: number | null; message?: string }
  | { kind: 'overloaded'; retryAfterMs: number | null; message?: string }
  | { kind: 'stream-error'; afterChunks: number; message?: string }
  | { kind: 'drop-connection'; afterChunks: number }
  | { kind: 'delay'; ms: number }
  | { kind: 'hang' }
  | ({ kind: 'content-filter'; message?: string } & AzureFilterHit);

export const FAILURE_KINDS = [
  'rate-limited',
  'server-error',
  'unavailable',
  'overloaded',
  'stream-error',
  'drop-connection',
  'delay',
  'hang',
  'content-filter',
] as const;

/** Options of the failures a client retries: how long to say to wait, and the message. */
export type RetryOptions = { retryAfterMs?: number | null; message?: string };

/** Builders for {@link Failure}s, for `fake.willFail(…)`. */
export const failures = {
  rateLimited: (options: RetryOptions = {}): Failure => ({
    kind: 'rate-limited',
    retryAfterMs: options.retryAfterMs === undefined ? 0 : options.retryAfterMs,
    ...message(options),
  }),
  serverError: (options: RetryOptions = {}): Failure => ({
    kind: 'server-error',
    retryAfterMs: options.retryAfterMs === undefined ? 0 : options.retryAfterMs,
    ...message(options),
  }),
  unavailable: (options: RetryOptions = {}): Failure => ({
    kind: 'unavailable',
    retryAfterMs: options.retryAfterMs === undefined ? 0 : options.retryAfterMs,
    ...message(options),
  }),
  overloaded: (options: RetryOptions = {}): Failure => ({
    kind: 'overloaded',
    retryAfterMs: options.retryAfterMs === undefined ? 0 : options.retryAfterMs,
    ...message(options),
  }),
  streamError: (options: { afterChunks?: number; message?: string } = {}): Failure => ({
    kind: 'stream-error',
    afterChunks: options.afterChunks ?? 1,
    ...message(options),
  }),
  dropConnection: (options: { afterChunks?: number } = {}): Failure => ({ kind: 'drop-connection', afterChunks: options.afterChunks ?? 0 }),
  delay: (ms: number): Failure => ({ kind: 'delay', ms }),
  hang: (): Failure => ({ kind: 'hang' }),
  /** Azure OpenAI's content filter refuses the prompt (by default for `hate` at severity `high`). */
  contentFilter: (options: Partial<AzureFilterHit> & { message?: string } = {}): Failure => ({
    kind: 'content-filter',
    category: options.category ?? 'hate',
    ...(options.severity === undefined ? {} : { severity: options.severity }),
    ...message(options),
  }),
};

function message(options: { message?: string }): { message?: string } {
  return options.message === undefined ? {} : { message: options.message };
}
