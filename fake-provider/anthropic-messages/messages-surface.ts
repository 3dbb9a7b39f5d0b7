import type { Answer, AskedMessage, AskedTool, AskedTurn, ResponseSchema, ToolExchange } from '../asked-turn.js';
import { cutArguments, cutIntoChunks } from '../chunking.js';
import { anthropicError } from '../provider-errors.js';
import { checkAnthropicStrictSchema } from '../strict-schema.js';
import { answerText, argumentsJson, contentText, fakeModel, askedTurn, type RenderContext, type StreamFailure, type Surface } from '../surface.js';
import { countTokens } from '../usage.js';
import { eventFrame, jsonResponse, sseResponse, type WireResponse } from '../wire-response.js';
import { isRecord } from '../../core/internal.js';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

type Block = Record<string, unknown>;

/** Anthropic Messages: `POST /v1/messages` (and `/messages`, as @ai-sdk/anthropic builds it). */
export const anthropicMessagesSurface: Surface = {
  provider: 'anthropic',
  endpoint: 'messages',

  refuse(body, options, context) {
    const constrained = options.constrained;
    const refuse = (message: string): WireResponse => anthropicError(400, 'invalid_request_error', message, context.requestId, context.headers);
    if (body.model === undefined) return refuse('model: Field required');
    if (body.max_tokens === undefined) return refuse('max_tokens: Field required');
    if (typeof body.max_tokens !== 'number' || body.max_tokens < 1) return refuse('max_tokens: Input should be greater than or equal to 1');
    if (body.messages === undefined) return refuse('messages: Field required');
    if (!Array.isArray(body.messages)) return refuse('messages: Input should be a valid list');
    if (body.messages.length === 0) return refuse('messages: at least one message is required');
    if (typeof body.temperature === 'number' && (body.temperature < 0 || body.temperature > 1)) {
      return refuse(`temperature: Input should be ${body.temperature < 0 ? 'greater than or equal to 0' : 'less than or equal to 1'}`);
    }
    const messages = body.messages as unknown[];
    let previousToolUses = new Set<string>();
    for (const [index, message] of messages.entries()) {
      if (!isRecord(message)) return refuse(`messages.${index}: Input should be a valid dictionary`);
      if (message.role !== 'user' && message.role !== 'assistant') return refuse(`messages.${index}.role: Input should be 'user' or 'assistant'`);
      if (index === 0 && message.role !== 'user' && options.anthropicPlatform === 'bedrock') return refuse('messages: first message must use the "user" role');
      const blocks = blocksOf(message.content);
      const isLast = index === messages.length - 1;
      if (blocks.length === 0 && !(isLast && message.role === 'assistant')) {
        return refuse(`messages.${index}: all messages must have non-empty content except for the optional final assistant message`);
      }
      const results = blocks.filter((block) => block.type === 'tool_result');
      for (const [position, block] of blocks.entries()) {
        if (block.type !== 'tool_result') continue;
        if (message.role !== 'user' || !previousToolUses.has(String(block.tool_use_id))) {
          return refuse(
            `messages.${index}.content.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        }
      }
      if (previousToolUses.size > 0) {
        const answered = new Set(results.map((block) => String(block.tool_use_id)));
        const missing = [...previousToolUses].filter((id) => !answered.has(id));
        if (missing.length > 0) {
          return refuse(
            `messages.${index - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
          );
        }
      }
      previousToolUses = new Set(message.role === 'assistant' ? blocks.filter((block) => block.type === 'tool_use').map((block) => String(block.id)) : []);
    }
    const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
    const names = new Set<string>();
    for (const [index, tool] of tools.entries()) {
      if (!isRecord(tool) || (tool.type !== undefined && tool.type !== 'custom')) continue;
      if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
        return refuse(`tools.${index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
      if (names.has(tool.name)) return refuse('tools: Tool names must be unique.');
      names.add(tool.name);
      if (!isRecord(tool.input_schema)) return refuse(`tools.${index}.custom.input_schema: Field required`);
      if (constrained && tool.strict === true) {
        const violation = checkAnthropicStrictSchema(tool.input_schema);
        if (violation) return refuse(`tools.${index}.custom.input_schema: ${violation.message}`);
      }
    }
    const choice = isRecord(body.tool_choice) ? body.tool_choice : undefined;
    if (choice && (choice.type === 'any' || choice.type === 'tool') && tools.length === 0)
      return refuse('tool_choice: tool_choice may only be specified while providing tools.');
    if (choice?.type === 'tool' && !names.has(String(choice.name)))
      return refuse(`tool_choice.name: Tool '${String(choice.name)}' not found in provided tools`);
    const format = outputFormat(body);
    if (constrained && format !== undefined) {
      const violation = checkAnthropicStrictSchema(format.schema);
      if (violation) return refuse(`output_config.format.schema: ${violation.message}`);
    }
    return undefined;
  },

  ask(body, index) {
    const system = typeof body.system === 'string' ? body.system : Array.isArray(body.system) ? contentText(body.system) : undefined;
    const messages: AskedMessage[] = [];
    const names = new Map<string, string>();
    for (const message of body.messages as Array<Record<string, unknown>>) {
      const blocks = blocksOf(message.content);
      const text = blocks
        .filter((block) => block.type === 'text')
        .map((block) => String(block.text))
        .join('');
      if (message.role === 'assistant') {
        const uses = blocks
          .filter((block) => block.type === 'tool_use')
          .map((block) => ({ id: String(block.id), name: String(block.name), arguments: block.input }));
        for (const use of uses) names.set(use.id, use.name);
        messages.push(uses.length > 0 ? { role: 'assistant', text, toolCalls: uses } : { role: 'assistant', text });
        continue;
      }
      for (const block of blocks.filter((candidate) => candidate.type === 'tool_result')) {
        messages.push({ role: 'tool', text: contentText(block.content), toolCallId: String(block.tool_use_id) });
      }
      if (text !== '' || !blocks.some((block) => block.type === 'tool_result')) messages.push({ role: 'user', text });
    }
    const tools: AskedTool[] = (Array.isArray(body.tools) ? (body.tools as Array<Record<string, unknown>>) : [])
      .filter((tool) => tool.type === undefined || tool.type === 'custom')
      .map((tool) => ({
        name: String(tool.name),
        description: typeof tool.description === 'string' ? tool.description : undefined,
        parameters: tool.input_schema,
        strict: tool.strict === true,
      }));
    const last = (body.messages as Array<Record<string, unknown>>).at(-1);
    const exchanges: ToolExchange[] =
      last?.role === 'user'
        ? blocksOf(last.content)
            .filter((block) => block.type === 'tool_result')
            .map((block) => ({
              toolCallId: String(block.tool_use_id),
              name: names.get(String(block.tool_use_id)),
              result: contentText(block.content),
              isError: block.is_error === true,
            }))
        : [];
    const format = outputFormat(body);
    const responseSchema: ResponseSchema | undefined = format
      ? { source: 'output_config.format', name: undefined, schema: format.schema, strict: true }
      : undefined;
    return askedTurn(body, { index, provider: 'anthropic', endpoint: 'messages', system, messages, tools, responseSchema, exchanges });
  },

  respond(turn, answer, context, failure) {
    return turn.stream ? streamMessage(turn, answer, context, failure) : jsonResponse(200, message(turn, answer, context), context.headers);
  },

  error(status, type, message, context) {
    // Anthropic's error types are a closed list; the fake's own kinds (fake_script_exhausted, …)
    // are named in the message instead.
    const known = [
      'invalid_request_error',
      'authentication_error',
      'billing_error',
      'permission_error',
      'not_found_error',
      'rate_limit_error',
      'timeout_error',
      'api_error',
      'overloaded_error',
    ];
    return anthropicError(
      status,
      known.includes(type) ? type : status >= 500 ? 'api_error' : 'invalid_request_error',
      message,
      context.requestId,
      context.headers,
    );
  },
};

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content.filter(isRecord) as Block[]) : [];
}

function outputFormat(body: Record<string, unknown>): { schema: unknown } | undefined {
  const config = isRecord(body.output_config) ? body.output_config : undefined;
  const format = isRecord(config?.format) ? config.format : isRecord(body.output_format) ? body.output_format : undefined;
  return format?.type === 'json_schema' ? { schema: format.schema ?? {} } : undefined;
}

function contentBlocks(answer: Answer, context: RenderContext): Block[] {
  const blocks: Block[] = [];
  const text = answer.kind === 'text' ? answer.text : answer.kind === 'structured' ? JSON.stringify(answer.value) : answer.text;
  // No `citations` key, as the real API sends a text block without citations: the spec marks it
  // required (nullable), but @ai-sdk/anthropic rejects `citations: null`.
  if (text !== undefined) blocks.push({ type: 'text', text });
  if (answer.kind === 'tool-calls') {
    for (const call of answer.calls)
      blocks.push({ type: 'tool_use', id: call.id ?? context.newId('toolu'), name: call.name, input: call.arguments ?? {}, caller: { type: 'direct' } });
  }
  return blocks;
}

function usage(inputTokens: number, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    server_tool_use: null,
    service_tier: 'standard',
    inference_geo: null,
  };
}

function message(turn: AskedTurn, answer: Answer, context: RenderContext, content?: Block[]): Record<string, unknown> {
  const blocks = content ?? contentBlocks(answer, context);
  return {
    id: context.newId('msg'),
    type: 'message',
    role: 'assistant',
    model: fakeModel(turn.model),
    content: blocks,
    stop_reason: blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: usage(context.promptTokens, countTokens(answerText(answer))),
  };
}

// message_start, then per block content_block_start → deltas → content_block_stop (a ping after
// the first start, as Anthropic sends one), message_delta with the stop reason, message_stop.
function streamMessage(turn: AskedTurn, answer: Answer, context: RenderContext, failure: StreamFailure | undefined): WireResponse {
  const blocks = contentBlocks(answer, context);
  const whole = message(turn, answer, context, blocks);
  const frames: string[] = [];
  const emit = (type: string, fields: Record<string, unknown> = {}): void => {
    frames.push(eventFrame(type, { type, ...fields }));
  };
  emit('message_start', { message: { ...whole, content: [], stop_reason: null, usage: usage(context.promptTokens, 1) } });
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'text') {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
      if (index === 0) emit('ping');
      for (const text of cutIntoChunks(String(block.text), context.chunking)) emit('content_block_delta', { index, delta: { type: 'text_delta', text } });
    } else {
      emit('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {}, caller: { type: 'direct' } } });
      if (index === 0) emit('ping');
      emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
      for (const partial_json of cutArguments(argumentsJson(block.input), context.chunking))
        emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    }
    emit('content_block_stop', { index });
  }
  const outputTokens = countTokens(answerText(answer));
  emit('message_delta', {
    delta: { stop_reason: whole.stop_reason, stop_sequence: null, stop_details: null, container: null },
    // output_tokens is cumulative; the SDK takes input and cache counts from here when present.
    usage: {
      output_tokens: outputTokens,
      input_tokens: context.promptTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      server_tool_use: null,
    },
  });
  emit('message_stop');
  if (failure?.kind === 'stream-error') {
    const kept = frames.slice(0, Math.min(failure.afterChunks, frames.length));
    kept.push(
      eventFrame('error', {
        type: 'error',
        error: { type: 'overloaded_error', message: failure.message ?? 'Overloaded (modeltape FakeProvider)' },
        request_id: context.requestId,
      }),
    );
    return sseResponse(kept, context.headers);
  }
  if (failure?.kind === 'drop-connection')
    return { ...sseResponse(frames, context.headers), cut: { kind: 'drop', afterFrames: Math.min(failure.afterChunks, frames.length - 1) } };
  return sseResponse(frames, context.headers);
}
