import {
  PROMPT_FILTERED_MESSAGE,
  anthropicErrorType,
  promptFilteredInnerError,
  type AskedTurn,
  type Provider,
  type ProviderError,
  type RefusalOptions,
  type Route,
  type TurnApi,
} from '../providers/internal.js';
import type { MessageThreads } from './anthropic-messages/message-threads.js';
import type { Answer, ResolvedFinish } from './answer.js';
import type { Failure } from './failures.js';
import { errorResponse, httpFailure } from './provider-errors.js';
import type { ConversationStore } from './openai-responses/conversation-store.js';
import type { ResponseStore } from './openai-responses/response-store.js';
import type { Chunking } from './script.js';
import type { WireResponse } from './wire-response.js';

/** The kinds of id the fake makes; each is prefixed `fake-` so it can never pass for a real one. */
export type IdKind = 'chatcmpl' | 'call' | 'resp' | 'msg' | 'fc' | 'rs' | 'toolu' | 'tooluse' | 'req' | 'conv' | 'item' | 'sess' | 'event';

/** What a surface needs to render one answer, the same for every surface. */
export interface RenderContext {
  newId(kind: IdKind): string;
  /** Seconds since the epoch, from the fake's clock. */
  created: number;
  requestId: string;
  chunking: Chunking | undefined;
  promptTokens: number;
  /** Headers every response of this call carries (the fake marker, the request id). */
  headers: Record<string, string>;
  /** How the turn ends, when the step scripted it. @default it ends as the answer does (`stop`, or a tool call) */
  finish?: ResolvedFinish;
  /** OpenAI chat with `n` > 1: every choice's answer, in order (the first is the answer rendered). */
  choices?: Answer[];
  /** The Anthropic message threads this fake holds: a `continue` resolves against them, and each reply on a thread is kept in them. */
  threads: MessageThreads;
  /** The fake's store of the responses it gave (OpenAI Responses `store: true`), when the fake keeps one. */
  responses?: ResponseStore;
  /** The conversations it made (OpenAI's Conversations API), which a Responses request's `conversation` reads and extends. */
  conversations?: ConversationStore;
}

/**
 * One wire API the fake answers model turns in (OpenAI chat completions, OpenAI responses,
 * Anthropic messages): its requests are refused and read by the provider's own rules (in
 * providers/), and answered here, JSON or streamed.
 */
export interface Surface {
  readonly provider: Provider;
  readonly api: TurnApi;
  /**
   * The request with the state the provider holds for it filled in (an Anthropic thread
   * `continue` becomes the whole conversation; OpenAI Responses' `previous_response_id` and
   * `item_reference` become what they name), or the error the provider answers when that
   * state is missing. Refusals and `ask` see what it returns. Absent: the body is used as sent.
   */
  resolve?(body: Record<string, unknown>, headers: Record<string, string>, context: RenderContext): { body: Record<string, unknown> } | { error: WireResponse };
  /**
   * The 400 the real provider answers before any model runs (a malformed conversation, a
   * parameter it rejects), or undefined. With `options.constrained`, a response schema or strict
   * tool schema outside what strict mode accepts is refused too. `route` is what the path says
   * (Bedrock holds an InvokeModel body to the schema of the model it names).
   */
  refuse(body: Record<string, unknown>, options: RefusalOptions, context: RenderContext, route?: Route): WireResponse | undefined;
  /** What the turn was shown; `route` names what the path says (Gemini's model and whether it streams). */
  ask(body: Record<string, unknown>, index: number, route: Route): AskedTurn;
  /**
   * The answer in this wire format: JSON, or a stream when the request asked for one. With a
   * stream failure, the stream breaks as it says (only called for streamed turns).
   */
  respond(turn: AskedTurn, answer: Answer, context: RenderContext, failure?: StreamFailure): WireResponse;
}

/** A failure that breaks a stream after some chunks. */
export type StreamFailure = Extract<Failure, { kind: 'stream-error' | 'drop-connection' }>;

/**
 * A scripted failure in the surface's wire format. `partial` is the answer a broken stream
 * starts to send, or a delayed turn sends in the end. A stream failure on a request that does
 * not stream becomes the provider's 5xx (or, for a drop, no response at all).
 */
export function failTurn(surface: Surface, turn: AskedTurn, failure: Failure, partial: Answer, context: RenderContext): WireResponse {
  switch (failure.kind) {
    case 'stream-error':
    case 'drop-connection':
      if (turn.stream) return surface.respond(turn, partial, context, failure);
      if (failure.kind === 'drop-connection') return { status: 0, headers: {}, cut: { kind: 'drop', afterFrames: 0 } };
      return httpFailure(
        surface.provider,
        { kind: surface.provider === 'anthropic' ? 'overloaded' : 'server-error', retryAfterMs: 0, ...(failure.message ? { message: failure.message } : {}) },
        context,
      );
    case 'hang':
      return { status: 0, headers: {}, cut: { kind: 'hang', afterFrames: 0 } };
    case 'content-filter':
      // Only an Azure OpenAI turn gets here (the fake refuses the step elsewhere).
      return errorResponse(
        surface.provider,
        {
          status: 400,
          type: 'invalid_request_error',
          param: 'prompt',
          code: 'content_filter',
          message: failure.message ?? PROMPT_FILTERED_MESSAGE,
          innererror: promptFilteredInnerError(failure),
        },
        context,
      );
    case 'delay':
      return { ...surface.respond(turn, partial, context), delayMs: failure.ms };
    default:
      return httpFailure(surface.provider, failure, context);
  }
}

/** The model name the fake answers with: it says it is fake. */
export function fakeModel(requested: string): string {
  return requested.startsWith('fake-') ? requested : `fake-${requested}`;
}

/** The text of an answer, for usage counts: text, tool arguments, or the structured value. */
export function answerText(answer: Answer): string {
  if (answer.kind === 'text') return answer.text;
  if (answer.kind === 'structured') return JSON.stringify(answer.value);
  return `${answer.text ?? ''}${answer.calls.map((call) => `${call.name}${JSON.stringify(call.arguments)}`).join('')}`;
}

/** Arguments as a JSON string, as OpenAI sends them; their objects' key order is kept. */
export function argumentsJson(value: unknown): string {
  return JSON.stringify(value ?? {});
}

/** A provider's refusal as the fake answers it, or undefined when the request is not refused. */
export function refusalResponse(provider: Provider, refusal: ProviderError | undefined, context: RenderContext): WireResponse | undefined {
  return refusal === undefined ? undefined : errorResponse(provider, refusal, context);
}

/**
 * The fake's own error (a script that ran out, an answer that does not fit) in the provider's
 * shape: its type is the fake's (`fake_script_exhausted`, …) where the provider's error types are
 * open, and named in the message where they are a closed list (Anthropic's).
 */
export function fakeError(provider: Provider, status: number, type: string, message: string, context: RenderContext): WireResponse {
  const shown = provider === 'anthropic' ? anthropicErrorType(status, type) : type;
  return errorResponse(
    provider,
    { status, type: shown, message, ...(provider === 'openai' || provider === 'azure' ? { code: type } : {}), fromModeltape: true },
    context,
  );
}
