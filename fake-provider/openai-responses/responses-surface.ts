import { isRecord } from '../../core/internal.js';
import type { Answer, AskedMessage, AskedTool, AskedTurn, ResponseSchema, ToolExchange } from '../asked-turn.js';
import { cutArguments, cutIntoChunks } from '../chunking.js';
import { openaiError } from '../provider-errors.js';
import { checkOpenAiStrictSchema, formatContext } from '../strict-schema.js';
import {
  answerText,
  argumentsJson,
  contentText,
  fakeModel,
  parseArguments,
  askedTurn,
  OPENAI_MAX_TOOLS as MAX_TOOLS,
  OPENAI_TOOL_NAME as TOOL_NAME,
  type RenderContext,
  type StreamFailure,
  type Surface,
} from '../surface.js';
import { countTokens } from '../usage.js';
import { eventFrame, jsonResponse, sseResponse, type WireResponse } from '../wire-response.js';

/** OpenAI Responses: `POST /v1/responses`. */
export const openaiResponsesSurface: Surface = {
  provider: 'openai',
  endpoint: 'responses',

  refuse(body, options, context) {
    const constrained = options.constrained;
    const refuse = (message: string, param: string | null, code: string | null = null): WireResponse =>
      openaiError(400, message, { param, code }, context.headers);
    if (typeof body.model !== 'string' || body.model === '') return refuse("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
    if (body.max_tokens !== undefined)
      return refuse(
        "Unsupported parameter: 'max_tokens'. In the Responses API, this parameter has moved to 'max_output_tokens'.",
        'max_tokens',
        'unsupported_parameter',
      );
    if (body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input))
      return refuse("Invalid type for 'input': expected one of a string or an array of input items.", 'input', 'invalid_type');
    // With previous_response_id (or a conversation) the calls live in the stored response, which
    // the fake does not keep: only a self-contained input can be checked.
    const stateful = body.previous_response_id !== undefined || body.conversation !== undefined;
    const calls = new Set<string>();
    for (const item of stateful || !Array.isArray(body.input) ? [] : (body.input as unknown[])) {
      if (!isRecord(item)) continue;
      if (item.type === 'function_call' && typeof item.call_id === 'string') calls.add(item.call_id);
      if (item.type === 'function_call_output' && !calls.has(String(item.call_id)))
        return refuse(`No tool call found for function call output with call_id ${String(item.call_id)}.`, 'input');
    }
    const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
    if (tools.length > MAX_TOOLS)
      return refuse(
        `Invalid 'tools': array too long. Expected an array with maximum length ${MAX_TOOLS}, but got an array with length ${tools.length} instead.`,
        'tools',
        'array_above_max_length',
      );
    for (const [index, tool] of tools.entries()) {
      if (!isRecord(tool) || tool.type !== 'function') continue;
      if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
        return refuse(
          `Invalid 'tools[${index}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${index}].name`,
          'invalid_value',
        );
      }
    }
    if (typeof body.temperature === 'number' && body.temperature > 2)
      return refuse(
        `Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ${body.temperature} instead.`,
        'temperature',
        'decimal_above_max_value',
      );
    if (constrained) {
      const format = isRecord(body.text) && isRecord(body.text.format) ? body.text.format : undefined;
      if (format?.type === 'json_schema' && format.strict === true) {
        const violation = checkOpenAiStrictSchema(format.schema);
        if (violation)
          return refuse(
            `Invalid schema for response_format '${String(format.name ?? 'response')}': In context=${formatContext(violation.context)}, ${violation.message}`,
            'text.format.schema',
          );
      }
      // Only tools that say `strict: true` are held to strict mode here; left out, the Responses
      // API converts the schema to strict form itself and accepts it.
      for (const [index, tool] of tools.entries()) {
        if (!isRecord(tool) || tool.type !== 'function' || tool.strict !== true) continue;
        const violation = checkOpenAiStrictSchema(tool.parameters);
        if (violation)
          return refuse(
            `Invalid schema for function '${String(tool.name)}': In context=${formatContext(violation.context)}, ${violation.message}`,
            `tools[${index}].parameters`,
          );
      }
    }
    return undefined;
  },

  ask(body, index) {
    const systemParts: string[] = [];
    if (typeof body.instructions === 'string') systemParts.push(body.instructions);
    const messages: AskedMessage[] = [];
    const names = new Map<string, string>();
    const items = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? (body.input as unknown[]) : [];
    for (const item of items) {
      if (!isRecord(item)) continue;
      if (item.type === 'function_call') {
        const call = { id: String(item.call_id), name: String(item.name), arguments: parseArguments(item.arguments) };
        names.set(call.id, call.name);
        const last = messages.at(-1);
        if (last?.role === 'assistant') (last.toolCalls ??= []).push(call);
        else messages.push({ role: 'assistant', text: '', toolCalls: [call] });
        continue;
      }
      if (item.type === 'function_call_output') {
        messages.push({ role: 'tool', text: typeof item.output === 'string' ? item.output : contentText(item.output), toolCallId: String(item.call_id) });
        continue;
      }
      if (item.role === 'system' || item.role === 'developer') {
        systemParts.push(contentText(item.content));
        continue;
      }
      if (item.role === 'user' || item.role === 'assistant') messages.push({ role: item.role, text: contentText(item.content) });
    }
    const system = systemParts.length > 0 ? systemParts.join('\n\n') : undefined;
    const tools: AskedTool[] = (Array.isArray(body.tools) ? (body.tools as Array<Record<string, unknown>>) : [])
      .filter((tool) => tool.type === 'function')
      .map((tool) => ({
        name: String(tool.name),
        description: typeof tool.description === 'string' ? tool.description : undefined,
        parameters: tool.parameters ?? { type: 'object', properties: {} },
        strict: tool.strict === true,
      }));
    const format = isRecord(body.text) && isRecord(body.text.format) ? body.text.format : undefined;
    let responseSchema: ResponseSchema | undefined;
    if (format?.type === 'json_schema')
      responseSchema = {
        source: 'text.format',
        name: typeof format.name === 'string' ? format.name : undefined,
        schema: format.schema ?? {},
        strict: format.strict === true,
      };
    const exchanges: ToolExchange[] = [];
    for (let position = messages.length - 1; position >= 0 && messages[position]!.role === 'tool'; position--) {
      const message = messages[position]!;
      exchanges.unshift({ toolCallId: message.toolCallId!, name: names.get(message.toolCallId!), result: message.text, isError: false });
    }
    return askedTurn(body, { index, provider: 'openai', endpoint: 'responses', system, messages, tools, responseSchema, exchanges });
  },

  respond(turn, answer, context, failure) {
    return turn.stream
      ? streamResponse(turn, answer, context, failure)
      : jsonResponse(200, responseObject(turn, outputItems(answer, context, 'completed'), context, 'completed', answer), context.headers);
  },

  error(status, type, message, context) {
    return openaiError(status, message, { type, code: type }, context.headers);
  },
};

type OutputItem = Record<string, unknown>;

function outputItems(answer: Answer, context: RenderContext, status: 'completed' | 'in_progress'): OutputItem[] {
  const items: OutputItem[] = [];
  const text = answer.kind === 'text' ? answer.text : answer.kind === 'structured' ? JSON.stringify(answer.value) : answer.text;
  if (text !== undefined) {
    items.push({
      type: 'message',
      id: context.newId('msg'),
      status,
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
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
  status: 'completed' | 'in_progress' | 'failed',
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
    incomplete_details: null,
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    max_output_tokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : null,
    model: fakeModel(turn.model),
    output,
    parallel_tool_calls: body.parallel_tool_calls !== false,
    previous_response_id: typeof body.previous_response_id === 'string' ? body.previous_response_id : null,
    reasoning: { effort: null, summary: null },
    store: body.store !== false,
    temperature: typeof body.temperature === 'number' ? body.temperature : 1,
    text: isRecord(body.text) ? body.text : { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: Array.isArray(body.tools) ? body.tools : [],
    top_p: typeof body.top_p === 'number' ? body.top_p : 1,
    truncation: 'disabled',
    metadata: isRecord(body.metadata) ? body.metadata : {},
  };
  if (status === 'completed') response.completed_at = context.created;
  if (answer !== undefined) {
    const output_tokens = countTokens(answerText(answer));
    response.usage = {
      input_tokens: context.promptTokens,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: context.promptTokens + output_tokens,
    };
  }
  return response;
}

// The events of a streamed response, each with `event:` and a rising sequence_number.
function streamResponse(turn: AskedTurn, answer: Answer, context: RenderContext, failure: StreamFailure | undefined): WireResponse {
  const id = context.newId('resp');
  const done = outputItems(answer, context, 'completed');
  const frames: string[] = [];
  let sequence = 0;
  const emit = (type: string, fields: Record<string, unknown>): void => {
    frames.push(eventFrame(type, { type, ...fields, sequence_number: sequence++ }));
  };
  emit('response.created', { response: responseObject(turn, [], context, 'in_progress', undefined, id) });
  emit('response.in_progress', { response: responseObject(turn, [], context, 'in_progress', undefined, id) });
  for (const [outputIndex, item] of done.entries()) {
    if (item.type === 'message') {
      const part = (item.content as Array<Record<string, unknown>>)[0]!;
      const text = String(part.text);
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
      emit('response.content_part.added', {
        item_id: item.id,
        output_index: outputIndex,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
      for (const delta of cutIntoChunks(text, context.chunking))
        emit('response.output_text.delta', { item_id: item.id, output_index: outputIndex, content_index: 0, delta, logprobs: [] });
      emit('response.output_text.done', { item_id: item.id, output_index: outputIndex, content_index: 0, text, logprobs: [] });
      emit('response.content_part.done', { item_id: item.id, output_index: outputIndex, content_index: 0, part });
    } else {
      const argumentsText = String(item.arguments);
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } });
      for (const delta of cutArguments(argumentsText, context.chunking))
        emit('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta });
      emit('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, name: item.name, arguments: argumentsText });
    }
    emit('response.output_item.done', { output_index: outputIndex, item });
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
  emit('response.completed', { response: responseObject(turn, done, context, 'completed', answer, id) });
  if (failure?.kind === 'drop-connection')
    return { ...sseResponse(frames, context.headers), cut: { kind: 'drop', afterFrames: Math.min(failure.afterChunks, frames.length - 1) } };
  return sseResponse(frames, context.headers);
}
