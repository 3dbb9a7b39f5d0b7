import { isRecord } from '../../core/internal.js';
import { readResponsesRequest, refuseResponsesRequest, type AskedTurn } from '../../providers/internal.js';
import type { Answer } from '../answer.js';
import { cutArguments, cutIntoChunks } from '../chunking.js';
import { answerText, argumentsJson, fakeModel, refusalResponse, type RenderContext, type StreamFailure, type Surface } from '../surface.js';
import { resolveConversation, resolvedState } from './conversation-state.js';
import { inputResources } from './item-resource.js';
import { includesEncryptedContent, reasoningText, reasons, sealReasoning, summaryMode } from './reasoning.js';
import { countTokens } from '../usage.js';
import { eventFrame, jsonResponse, sseResponse, type WireResponse } from '../wire-response.js';

/** OpenAI Responses: `POST /v1/responses`. */
export const openaiResponsesSurface: Surface = {
  provider: 'openai',
  api: 'openai-responses',

  resolve(body, _headers, context) {
    if (context.responses === undefined) return { body };
    const resolved = resolveConversation(body, context.responses, context.conversations);
    return 'refusal' in resolved ? { error: refusalResponse('openai', resolved.refusal, context)! } : { body: resolved.body };
  },
  // The input is resolved by then (previous_response_id included), so the calls a tool output
  // answers are checked over the whole conversation.
  refuse: (body, options, context) =>
    refusalResponse(
      'openai',
      refuseResponsesRequest(
        context.responses === undefined || (body.previous_response_id === undefined && body.conversation === undefined)
          ? body
          : { ...body, previous_response_id: undefined, conversation: undefined },
        options,
      ),
      context,
    ),
  ask: readResponsesRequest,

  respond(turn, answer, context, failure) {
    const status = finalStatus(context);
    if (turn.stream) return streamResponse(turn, answer, context, failure);
    const response = responseObject(turn, outputItems(turn, answer, context, status), context, status, answer);
    keep(turn, response, context);
    return jsonResponse(200, response, context.headers);
  },
};

// With `store` left true (the API's default) the response is kept for later requests; in a
// conversation, its input and output items are appended to the conversation.
function keep(turn: AskedTurn, response: Record<string, unknown>, context: RenderContext): void {
  const state = resolvedState(turn.body);
  const conversation = state?.conversation === undefined ? undefined : context.conversations?.conversation(state.conversation);
  const storing = context.responses !== undefined && turn.body.store !== false;
  if (!storing && conversation === undefined) return;
  const whole = Array.isArray(turn.body.input) ? (turn.body.input as OutputItem[]) : [];
  const own = state?.input ?? whole;
  const input = inputResources(own, context.newId);
  const output = response.output as OutputItem[];
  if (storing) {
    const stored = { id: String(response.id), conversation: whole, input, output, response, background: turn.body.background === true };
    const earlier = whole.slice(0, whole.length - own.length);
    context.responses!.keep(reasons(turn.body) ? { ...stored, reasoning: reasoningText(turn.index) } : stored, [...earlier, ...input]);
  }
  if (conversation !== undefined && 'found' in conversation) conversation.found.items.push(...input, ...output);
}

/** A turn cut by the token limit or a filter ends `incomplete`, saying why in `incomplete_details`. */
function incompleteReason(context: RenderContext): 'max_output_tokens' | 'content_filter' | undefined {
  const reason = context.finish?.reason;
  return reason === 'length' ? 'max_output_tokens' : reason === 'content-filter' ? 'content_filter' : undefined;
}

function finalStatus(context: RenderContext): 'completed' | 'incomplete' {
  return incompleteReason(context) === undefined ? 'completed' : 'incomplete';
}

type OutputItem = Record<string, unknown>;

function outputItems(turn: AskedTurn, answer: Answer, context: RenderContext, status: 'completed' | 'in_progress' | 'incomplete'): OutputItem[] {
  const items: OutputItem[] = [];
  if (reasons(turn.body)) {
    const id = context.newId('rs');
    const text = reasoningText(turn.index);
    const item: OutputItem = { type: 'reasoning', id, summary: summaryMode(turn.body) === undefined ? [] : [{ type: 'summary_text', text }] };
    if (includesEncryptedContent(turn.body)) item.encrypted_content = sealReasoning(id, text);
    items.push(item);
  }
  const text = answer.kind === 'text' ? answer.text : answer.kind === 'structured' ? JSON.stringify(answer.value) : answer.text;
  if (text !== undefined) {
    items.push({
      type: 'message',
      id: context.newId('msg'),
      status,
      role: 'assistant',
      // A refusal is its own content part, not output text.
      content: [context.finish?.reason === 'refusal' ? { type: 'refusal', refusal: text } : { type: 'output_text', text, annotations: [], logprobs: [] }],
    });
  }
  if (answer.kind === 'tool-calls') {
    for (const call of answer.calls) {
      items.push({
        type: 'function_call',
        id: context.newId('fc'),
        call_id: call.id ?? context.newId('call'),
        name: call.name,
        arguments: argumentsJson(call.arguments),
        status,
      });
    }
  }
  return items;
}

function responseObject(
  turn: AskedTurn,
  output: OutputItem[],
  context: RenderContext,
  status: 'completed' | 'in_progress' | 'failed' | 'incomplete',
  answer: Answer | undefined,
  id?: string,
): Record<string, unknown> {
  const body = turn.body;
  const response: Record<string, unknown> = {
    id: id ?? context.newId('resp'),
    object: 'response',
    created_at: context.created,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: incompleteReason(context) } : null,
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    max_output_tokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : null,
    model: fakeModel(turn.model),
    output,
    parallel_tool_calls: body.parallel_tool_calls !== false,
    previous_response_id: typeof body.previous_response_id === 'string' ? body.previous_response_id : null,
    reasoning: reasoningSettings(body),
    store: body.store !== false,
    temperature: typeof body.temperature === 'number' ? body.temperature : 1,
    text: isRecord(body.text) ? body.text : { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: Array.isArray(body.tools) ? body.tools : [],
    top_p: typeof body.top_p === 'number' ? body.top_p : 1,
    truncation: 'disabled',
    metadata: isRecord(body.metadata) ? body.metadata : {},
  };
  const conversation = resolvedState(body)?.conversation;
  if (conversation !== undefined) response.conversation = { id: conversation };
  if (status === 'completed') response.completed_at = context.created;
  if (answer !== undefined) {
    // A reasoning model's output tokens include the ones it reasoned with.
    const reasoning_tokens = reasons(body) ? countTokens(reasoningText(turn.index)) : 0;
    const output_tokens = countTokens(answerText(answer)) + reasoning_tokens;
    response.usage = {
      input_tokens: context.promptTokens,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens,
      output_tokens_details: { reasoning_tokens },
      total_tokens: context.promptTokens + output_tokens,
    };
  }
  return response;
}

function reasoningSettings(body: Record<string, unknown>): Record<string, unknown> {
  if (!reasons(body)) return { effort: null, summary: null };
  const asked = isRecord(body.reasoning) ? body.reasoning : {};
  return { effort: typeof asked.effort === 'string' ? asked.effort : 'medium', summary: summaryMode(body) ?? null };
}

// The events of a streamed response, each with `event:` and a rising sequence_number. The
// frames are the bytes `JSON.stringify({ type, ...fields, sequence_number })` gives, built from
// strings where the stream spends its time: the deltas share all but their text,
// `response.created` and `response.in_progress` carry the same response, and the finished
// items are serialized once, for `response.output_item.done` and the final response.
function streamResponse(turn: AskedTurn, answer: Answer, context: RenderContext, failure: StreamFailure | undefined): WireResponse {
  const id = context.newId('resp');
  const status = finalStatus(context);
  const done = outputItems(turn, answer, context, status);
  const frames: string[] = [];
  let sequence = 0;
  const emit = (type: string, fields: Record<string, unknown>): void => {
    frames.push(eventFrame(type, { type, ...fields, sequence_number: sequence++ }));
  };
  // `inner` is the event's JSON between its type and its sequence number.
  const emitJson = (type: string, inner: string): void => {
    frames.push(`event: ${type}\ndata: {"type":"${type}",${inner},"sequence_number":${sequence++}}\n\n`);
  };
  const itemJsons: string[] = [];
  // `head` is the event's JSON up to the delta's own value, `tail` what follows it before the sequence number.
  const deltas = (type: string, fields: Record<string, unknown>, pieces: readonly string[], tail = ''): void => {
    const head = `event: ${type}\ndata: ${JSON.stringify({ type, ...fields }).slice(0, -1)},"delta":`;
    for (const piece of pieces) frames.push(`${head}${JSON.stringify(piece)}${tail},"sequence_number":${sequence++}}\n\n`);
  };
  const opening = JSON.stringify(responseObject(turn, [], context, 'in_progress', undefined, id));
  for (const type of ['response.created', 'response.in_progress'])
    frames.push(`event: ${type}\ndata: {"type":"${type}","response":${opening},"sequence_number":${sequence++}}\n\n`);
  for (const [outputIndex, item] of done.entries()) {
    if (item.type === 'message') {
      const part = (item.content as Array<Record<string, unknown>>)[0]!;
      const refused = part.type === 'refusal';
      const text = String(refused ? part.refusal : part.text);
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
      emit('response.content_part.added', {
        item_id: item.id,
        output_index: outputIndex,
        content_index: 0,
        part: refused ? { type: 'refusal', refusal: '' } : { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
      if (refused) {
        deltas('response.refusal.delta', { item_id: item.id, output_index: outputIndex, content_index: 0 }, cutIntoChunks(text, context.chunking));
        emit('response.refusal.done', { item_id: item.id, output_index: outputIndex, content_index: 0, refusal: text });
      } else {
        const at = `"item_id":${JSON.stringify(item.id)},"output_index":${outputIndex},"content_index":0`;
        deltas(
          'response.output_text.delta',
          { item_id: item.id, output_index: outputIndex, content_index: 0 },
          cutIntoChunks(text, context.chunking),
          ',"logprobs":[]',
        );
        emitJson('response.output_text.done', `${at},"text":${JSON.stringify(text)},"logprobs":[]`);
      }
      emit('response.content_part.done', { item_id: item.id, output_index: outputIndex, content_index: 0, part });
    } else if (item.type === 'reasoning') {
      const summary = item.summary as Array<{ type: 'summary_text'; text: string }>;
      // The content in `added` may be incomplete (the spec says so); the full item comes in `done`.
      const { encrypted_content: _sealed, ...opened } = item;
      emit('response.output_item.added', { output_index: outputIndex, item: { ...opened, summary: [] } });
      for (const [summaryIndex, part] of summary.entries()) {
        const at = { item_id: item.id, output_index: outputIndex, summary_index: summaryIndex };
        emit('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
        deltas('response.reasoning_summary_text.delta', at, cutIntoChunks(part.text, context.chunking));
        emit('response.reasoning_summary_text.done', { ...at, text: part.text });
        emit('response.reasoning_summary_part.done', { ...at, part });
      }
    } else {
      const argumentsText = String(item.arguments);
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } });
      deltas('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex }, cutArguments(argumentsText, context.chunking));
      emit('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, name: item.name, arguments: argumentsText });
    }
    const itemJson = JSON.stringify(item);
    itemJsons.push(itemJson);
    emitJson('response.output_item.done', `"output_index":${outputIndex},"item":${itemJson}`);
  }
  if (failure?.kind === 'stream-error') {
    const kept = frames.slice(0, Math.min(failure.afterChunks, frames.length));
    sequence = kept.length;
    frames.length = 0;
    frames.push(...kept);
    const message = failure.message ?? 'The server had an error while processing your request. (modeltape FakeProvider)';
    // The spec's ResponseErrorEvent is flat (code/message/param); both SDKs read that form.
    emit('error', { code: 'server_error', message, param: null });
    const failed = responseObject(turn, [], context, 'failed', undefined, id);
    failed.error = { code: 'server_error', message };
    emit('response.failed', { response: failed });
    return sseResponse(frames, context.headers);
  }
  const completed = responseObject(turn, done, context, status, answer, id);
  keep(turn, completed, context);
  // `output` comes before any field a request can fill with objects (tools, text, metadata), and
  // the ones before it are strings, numbers or null: its first `"output":[]` is the field.
  const unfilled = JSON.stringify({ ...completed, output: [] });
  const at = unfilled.indexOf('"output":[]') + '"output":['.length;
  emitJson(
    status === 'incomplete' ? 'response.incomplete' : 'response.completed',
    `"response":${unfilled.slice(0, at)}${itemJsons.join(',')}${unfilled.slice(at)}`,
  );
  if (failure?.kind === 'drop-connection')
    return { ...sseResponse(frames, context.headers), cut: { kind: 'drop', afterFrames: Math.min(failure.afterChunks, frames.length - 1) } };
  return sseResponse(frames, context.headers);
}
