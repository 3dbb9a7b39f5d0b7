// The exchange answered with the provider's own transient failure (what its SDK raises and
// retries), and the error a stream breaks off with: the words are providers/' (transientFailure),
// the ones the FakeProvider and chaos replay answer with.
import { bedrockStreamException, errorBody, errorHeaders, transientFailure, type Provider, type TransientFailure } from '../../providers/internal.js';
import { sha256Hex, type Frame, type RecordedResponse } from '../../recordings/internal.js';
import type { MutationOperator } from '../mutation.js';

/** Who the failures' messages name as playing them, so nobody takes one for the provider's. */
export const MUTATED_BY = 'modeltape mutate';

/** The operators that answer the whole exchange with a failure, and the failure each plays. */
export const FAILURE_OPERATORS: ReadonlyArray<{ operator: MutationOperator; kind: TransientFailure }> = [
  { operator: 'rate-limited', kind: 'rate-limited' },
  { operator: 'server-error', kind: 'server-error' },
  { operator: 'overloaded', kind: 'overloaded' },
];

/**
 * The recorded response replaced by the provider's error for `kind`: its status, its error body
 * (plain JSON, also for a streamed exchange), the recorded headers but the body's own
 * (`content-type`, `content-length`), and `retry-after` / `retry-after-ms` of 0 so a retrying SDK asks again at
 * once; an Anthropic body names the recorded `request-id`.
 */
export function failureResponse(provider: Provider, kind: TransientFailure, recorded: RecordedResponse): RecordedResponse {
  const error = transientFailure(provider, kind, MUTATED_BY);
  const requestId = recorded.headers['request-id'];
  const json = errorBody(provider, { ...error, requestId: typeof requestId === 'string' ? requestId : null });
  const headers: RecordedResponse['headers'] = {};
  for (const [name, value] of Object.entries(recorded.headers)) if (!BODY_HEADERS.has(name.toLowerCase())) headers[name] = value;
  headers['content-type'] = 'application/json';
  Object.assign(headers, errorHeaders(provider, error.type));
  // The SDKs retry these; under mutate every retry gets the same failure (the mutant repeats), at once.
  headers['retry-after-ms'] = '0';
  headers['retry-after'] = '0';
  const { body: _body, stream: _stream, ...rest } = recorded;
  return { ...rest, status: error.status, headers, body: { json, sha256: sha256Hex(JSON.stringify(json)) } };
}

/** The error a stream of `provider` breaks off with: the server error (OpenAI, Ollama) or the overload (Anthropic, Gemini) as its SDK reads it mid-stream. */
export function streamFailure(provider: Provider): { status: number; type: string; message: string; code: string | null } {
  const kind: TransientFailure = provider === 'anthropic' || provider === 'gemini' ? 'overloaded' : 'server-error';
  const error = transientFailure(provider, kind, MUTATED_BY);
  return { status: error.status, type: error.type, message: error.message, code: error.code ?? null };
}

/** The error body a stream of `provider` carries in its error event (OpenAI chat, Gemini, Ollama: their error body). */
export function streamErrorBody(provider: Provider): Record<string, unknown> {
  const failure = streamFailure(provider);
  if (provider === 'anthropic') return { type: 'error', error: { type: failure.type, message: failure.message } };
  return errorBody(provider, { ...failure });
}

/**
 * The message a Bedrock event stream breaks off with (ConverseStream and
 * InvokeModelWithResponseStream alike): not an SSE error but an event stream message of
 * `:message-type: exception`, `:exception-type: modelStreamErrorException`, which the AWS SDK raises
 * as `ModelStreamErrorException` from the stream; replay encodes it, CRCs and all.
 */
export function bedrockStreamErrorFrame(atMs: number): Frame {
  const failure = streamFailure('bedrock');
  const exception = bedrockStreamException('modelStreamErrorException', `Model Stream Error (${MUTATED_BY})`, {
    status: failure.status,
    message: failure.message,
  });
  return { atMs, event: exception };
}

const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'transfer-encoding']);
