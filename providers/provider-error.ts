/** What an error says, before any provider's shape. */
export interface ProviderError {
  status: number;
  /** The provider's error type (`invalid_request_error`, `rate_limit_error`, …), or modeltape's own (`modeltape_replay_miss`). */
  type: string;
  message: string;
  /** OpenAI's `param`. @default null */
  param?: string | null;
  /** OpenAI's `code`. @default null */
  code?: string | null;
  /** Anthropic's `request_id`. @default null */
  requestId?: string | null;
  /**
   * The error is modeltape's own (a replay miss, a script that ran out), not one it plays as the
   * provider: an Anthropic body then also carries a top-level `message`, which @anthropic-ai/sdk
   * prints as the error's text (it prints a body without one as escaped JSON).
   */
  fromModeltape?: boolean;
  /**
   * Anthropic's machine-readable `error.details` (`{ error_code: 'thread_not_found' }`), which
   * @anthropic-ai/sdk reads as `error.errorCode` and picks its error class by. @default none
   */
  details?: Record<string, unknown>;
  /**
   * Azure OpenAI's `innererror` on a prompt its content filter blocks (`code:
   * "ResponsibleAIPolicyViolation"`, `content_filter_result`); the body is then Azure's 400
   * `content_filter` shape. @default none
   */
  innererror?: Record<string, unknown>;
}
