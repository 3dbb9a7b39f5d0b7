import type { Answer, AskedMessage, AskedTurn, ModelEndpoint } from './asked-turn.js';
import type { Failure } from './failures.js';
import { httpFailure } from './provider-errors.js';
import type { Chunking } from './script.js';
import type { WireResponse } from './wire-response.js';
import { isRecord } from '../core/internal.js';

/** The kinds of id the fake makes; each is prefixed `fake-` so it can never pass for a real one. */
export type IdKind = 'chatcmpl' | 'call' | 'resp' | 'msg' | 'fc' | 'toolu' | 'req';

/** What decides the refusals beyond a provider's fixed rules. */
export interface RefusalOptions {
  /** Check response schemas and strict tool schemas against strict mode. */
  constrained: boolean;
  /**
   * `bedrock` refuses an Anthropic conversation whose first message is not from the user, as
   * Amazon Bedrock does; Anthropic's own API accepts it (since late 2024).
   */
  anthropicPlatform: 'anthropic' | 'bedrock';
}

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
}

/**
 * One wire format (OpenAI chat completions, OpenAI responses, Anthropic messages): how its
 * requests are refused, read into an {@link AskedTurn}, and answered, JSON or streamed.
 */
export interface Surface {
  readonly provider: 'openai' | 'anthropic';
  readonly endpoint: ModelEndpoint;
  /**
   * The 400 the real provider answers before any model runs (a malformed conversation, a
   * parameter it rejects), or undefined. With `options.constrained`, a response schema or strict
   * tool schema outside what strict mode accepts is refused too.
   */
  refuse(body: Record<string, unknown>, options: RefusalOptions, context: RenderContext): WireResponse | undefined;
  /** What the turn was shown. */
  ask(body: Record<string, unknown>, index: number): AskedTurn;
  /**
   * The answer in this wire format: JSON, or a stream when the request asked for one. With a
   * stream failure, the stream breaks as it says (only called for streamed turns).
   */
  respond(turn: AskedTurn, answer: Answer, context: RenderContext, failure?: StreamFailure): WireResponse;
  /** An error body in this provider's shape, for the fake's own errors (script ran out, …). */
  error(status: number, type: string, message: string, context: RenderContext): WireResponse;
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
        context.requestId,
        context.headers,
      );
    case 'hang':
      return { status: 0, headers: {}, cut: { kind: 'hang', afterFrames: 0 } };
    case 'delay':
      return { ...surface.respond(turn, partial, context), delayMs: failure.ms };
    default:
      return httpFailure(surface.provider, failure, context.requestId, context.headers);
  }
}

/** A tool choice in any provider's form, read one way. */
export interface ToolChoice {
  /** `auto`: the model may call a tool; `none`: it may not; `required`: it must. */
  mode: 'auto' | 'none' | 'required';
  /** The one tool it must call, when the choice names one. */
  name?: string;
}

/**
 * Reads OpenAI chat (`"required"`, `{type:"function",function:{name}}`), Responses
 * (`{type:"function",name}`) and Anthropic (`{type:"any"|"tool"|"none",name}`) tool choices.
 */
export function readToolChoice(choice: unknown): ToolChoice {
  if (choice === 'none' || choice === 'required') return { mode: choice };
  if (!isRecord(choice)) return { mode: 'auto' };
  if (choice.type === 'none') return { mode: 'none' };
  if (choice.type === 'any') return { mode: 'required' };
  if (choice.type === 'tool' && typeof choice.name === 'string') return { mode: 'required', name: choice.name };
  if (choice.type === 'function') {
    const name = isRecord(choice.function) ? choice.function.name : choice.name;
    return typeof name === 'string' ? { mode: 'required', name } : { mode: 'required' };
  }
  return { mode: 'auto' };
}

/** The model name the fake answers with: it says it is fake. */
export function fakeModel(requested: string): string {
  return requested.startsWith('fake-') ? requested : `fake-${requested}`;
}

/**
 * A turn as `asked()` reports it, from what a surface read out of the request body: the fields
 * every surface fills alike (model, tool choice, stream, body, prompt) are filled here.
 */
export function askedTurn(
  body: Record<string, unknown>,
  read: Pick<AskedTurn, 'index' | 'provider' | 'endpoint' | 'system' | 'messages' | 'tools' | 'responseSchema' | 'exchanges'>,
): AskedTurn {
  return {
    ...read,
    model: String(body.model),
    toolChoice: body.tool_choice,
    stream: body.stream === true,
    body,
    prompt: renderPrompt(read.system, read.messages),
  };
}

/** The tool names and count OpenAI's APIs accept (Chat Completions and Responses alike). */
export const OPENAI_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const OPENAI_MAX_TOOLS = 128;

/** `role: text` lines, system first: what `prompt` globs match against. */
export function renderPrompt(system: string | undefined, messages: readonly AskedMessage[]): string {
  const lines: string[] = [];
  if (system !== undefined) lines.push(`system: ${system}`);
  for (const message of messages) {
    let line = `${message.role}: ${message.text}`;
    for (const call of message.toolCalls ?? []) line += `${line.endsWith(': ') ? '' : ' '}[${call.name}(${JSON.stringify(call.arguments)})]`;
    lines.push(line);
  }
  return lines.join('\n');
}

/** The text of an answer, for usage counts: text, tool arguments, or the structured value. */
export function answerText(answer: Answer): string {
  if (answer.kind === 'text') return answer.text;
  if (answer.kind === 'structured') return JSON.stringify(answer.value);
  return `${answer.text ?? ''}${answer.calls.map((call) => `${call.name}${JSON.stringify(call.arguments)}`).join('')}`;
}

/** Text of a content value: a string, or the `text` of each text part joined. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      if (typeof part === 'string') return part;
      if (part && typeof part === 'object') {
        const record = part as Record<string, unknown>;
        if (typeof record.text === 'string') return record.text;
        if (typeof record.content === 'string') return record.content;
      }
      return '';
    })
    .join('');
}

/** Arguments as a JSON string, as OpenAI sends them; their objects' key order is kept. */
export function argumentsJson(value: unknown): string {
  return JSON.stringify(value ?? {});
}

/** Parses tool-call arguments sent back in a conversation; text that is not JSON stays text. */
export function parseArguments(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
