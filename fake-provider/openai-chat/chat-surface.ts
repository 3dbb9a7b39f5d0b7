import { isRecord } from '../../core/internal.js';
import { readChatRequest, refuseChatRequest, type AskedTurn } from '../../providers/internal.js';
import type { Answer } from '../answer.js';
import { cutArguments } from '../chunking.js';
import { answerText, argumentsJson, fakeModel, refusalResponse, type RenderContext, type StreamFailure, type Surface } from '../surface.js';
import { countTokens } from '../usage.js';
import { scriptedJson, scriptedPiecesJson } from '../scripted-json.js';
import { dataFrame, jsonTextResponse, sseResponse, type WireResponse } from '../wire-response.js';

const FINGERPRINT = 'fp_modeltape_fake';

/** OpenAI Chat Completions: `POST /v1/chat/completions`. */
export const openaiChatSurface: Surface = {
  provider: 'openai',
  api: 'openai-chat',

  refuse: (body, options, context) => refusalResponse('openai', refuseChatRequest(body, options), context),
  ask: readChatRequest,

  respond(turn, answer, context, failure) {
    return turn.stream ? streamChat(turn, answer, context, failure) : jsonTextResponse(200, completionJson(turn, answer, context), context.headers);
  },
};

function messageContent(answer: Answer, context: RenderContext): string | null {
  // A refusal's text is the message's `refusal`, and its content null.
  if (context.finish?.reason === 'refusal') return null;
  if (answer.kind === 'text') return answer.text;
  if (answer.kind === 'structured') return JSON.stringify(answer.value);
  return answer.text ?? null;
}

function toolCalls(answer: Answer, context: RenderContext): Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> {
  if (answer.kind !== 'tool-calls') return [];
  return answer.calls.map((call) => ({
    id: call.id ?? context.newId('call'),
    type: 'function',
    function: { name: call.name, arguments: argumentsJson(call.arguments) },
  }));
}

/** The usage object as JSON text (JSON.stringify's bytes, keys in this order). */
function usageJson(promptTokens: number, completionTokens: number): string {
  return `{"prompt_tokens":${jsonNumber(promptTokens)},"completion_tokens":${jsonNumber(completionTokens)},"total_tokens":${jsonNumber(promptTokens + completionTokens)},"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`;
}

/** A number as JSON.stringify writes it. */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** The message's refusal text (finish `refusal`), or null. */
function refusalText(answer: Answer, context: RenderContext): string | null {
  return context.finish?.reason === 'refusal' && answer.kind === 'text' ? answer.text : null;
}

/** `finish_reason`: the scripted finish (a refusal and a stop sequence end as `stop`), else how the answer ends. */
function finishReason(calls: readonly unknown[], context: RenderContext): string {
  const reason = context.finish?.reason;
  if (reason === 'length') return 'length';
  if (reason === 'content-filter') return 'content_filter';
  return calls.length > 0 ? 'tool_calls' : 'stop';
}

/** Every choice's answer: one, or `n` of them. */
function choiceAnswers(answer: Answer, context: RenderContext): Answer[] {
  return context.choices ?? [answer];
}

// The completion as JSON.stringify would write it (the same keys in the same order), written by
// hand so that the scripted text is encoded once, not on every call (scripted-json.ts).
function completionJson(turn: AskedTurn, answer: Answer, context: RenderContext): string {
  const answers = choiceAnswers(answer, context);
  const choices = answers.map((one, index) => {
    const calls = toolCalls(one, context);
    const message = `{"role":"assistant","content":${textJson(messageContent(one, context), one)},"refusal":${textJson(refusalText(one, context), one)},"annotations":[]${calls.length > 0 ? `,"tool_calls":${JSON.stringify(calls)}` : ''}}`;
    return `{"index":${index},"message":${message},"logprobs":null,"finish_reason":${JSON.stringify(finishReason(calls, context))}}`;
  });
  return `{"id":${JSON.stringify(context.newId('chatcmpl'))},"object":"chat.completion","created":${jsonNumber(context.created)},"model":${JSON.stringify(fakeModel(turn.model))},"choices":[${choices.join(',')}],"usage":${usageJson(context.promptTokens, completionTokens(answers))},"service_tier":"default","system_fingerprint":${JSON.stringify(FINGERPRINT)}}`;
}

/** A message's content or refusal as JSON: the scripted text is kept encoded, anything else is encoded now. */
function textJson(text: string | null, answer: Answer): string {
  if (text === null) return 'null';
  return (answer.kind === 'text' || answer.kind === 'tool-calls') && text === answer.text ? scriptedJson(text) : JSON.stringify(text);
}

function completionTokens(answers: readonly Answer[]): number {
  return answers.reduce((total, one) => total + countTokens(answerText(one)), 0);
}

// The stream of a chat completion: role first, content deltas, tool-call deltas keyed by index
// with id and name only in the first, the finish chunk, the usage chunk when asked, [DONE].
function streamChat(turn: AskedTurn, answer: Answer, context: RenderContext, failure: StreamFailure | undefined): WireResponse {
  const id = context.newId('chatcmpl');
  const includeUsage = isRecord(turn.body.stream_options) && turn.body.stream_options.include_usage === true;
  // Every chunk repeats the same fields: written once, with each chunk's choice spliced in.
  const head = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${jsonNumber(context.created)},"model":${JSON.stringify(fakeModel(turn.model))},"service_tier":"default","system_fingerprint":${JSON.stringify(FINGERPRINT)}`;
  const tail = includeUsage ? ',"usage":null}' : '}';
  const frames: string[] = [];
  const answers = choiceAnswers(answer, context);
  // With n choices, each choice streams in turn, every chunk carrying its choice's index.
  for (const [choiceIndex, one] of answers.entries()) {
    // The delta comes as JSON text: the scripted text's pieces are encoded once (scripted-json.ts).
    const chunk = (delta: string, finish: string | null = null): string =>
      `data: ${head},"choices":[{"index":${choiceIndex},"delta":${delta},"logprobs":null,"finish_reason":${finish === null ? 'null' : JSON.stringify(finish)}}]${tail}\n\n`;
    const calls = toolCalls(one, context);
    const content = messageContent(one, context);
    const refusal = refusalText(one, context);
    const firstDelta = (index: number) => ({ index, id: calls[index]!.id, type: 'function', function: { name: calls[index]!.function.name, arguments: '' } });
    // With no text, the first tool call opens in the role chunk, as OpenAI streams it.
    const openFirstCall = calls.length > 0 && content === null;
    frames.push(
      chunk(
        openFirstCall
          ? JSON.stringify({ role: 'assistant', content: null, tool_calls: [firstDelta(0)], refusal: null })
          : refusal !== null
            ? '{"role":"assistant","content":null,"refusal":""}'
            : '{"role":"assistant","content":"","refusal":null}',
      ),
    );
    for (const piece of scriptedPiecesJson(content ?? '', context.chunking)) frames.push(chunk(`{"content":${piece}}`));
    for (const piece of scriptedPiecesJson(refusal ?? '', context.chunking)) frames.push(chunk(`{"refusal":${piece}}`));
    for (const [index, call] of calls.entries()) {
      if (index > 0 || !openFirstCall) frames.push(chunk(JSON.stringify({ tool_calls: [firstDelta(index)] })));
      for (const piece of cutArguments(call.function.arguments, context.chunking))
        frames.push(chunk(JSON.stringify({ tool_calls: [{ index, function: { arguments: piece } }] })));
    }
    frames.push(chunk('{}', finishReason(calls, context)));
  }
  if (includeUsage) frames.push(`data: ${head},"choices":[],"usage":${usageJson(context.promptTokens, completionTokens(answers))}}\n\n`);
  frames.push(dataFrame('[DONE]'));
  if (failure?.kind === 'stream-error') {
    const kept = frames.slice(0, Math.min(failure.afterChunks, frames.length - 1));
    kept.push(
      dataFrame({
        error: {
          message: failure.message ?? 'The server had an error while processing your request. (modeltape FakeProvider)',
          type: 'server_error',
          param: null,
          code: null,
        },
      }),
    );
    return sseResponse(kept, context.headers);
  }
  if (failure?.kind === 'drop-connection')
    return { ...sseResponse(frames, context.headers), cut: { kind: 'drop', afterFrames: Math.min(failure.afterChunks, frames.length - 1) } };
  return sseResponse(frames, context.headers);
}
