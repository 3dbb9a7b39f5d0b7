// Bedrock exchanges for unit tests, as the recorder writes them: a JSON body kept exactly, or an
// AWS event stream split into one readable `event` frame per message (messages built by
// @smithy/core's codec in event-stream-messages.ts). They import the source, not dist/.
import { FrameSplitter, encodeBody, sha256Hex, type Exchange, type RecordedResponse } from '../../recordings/internal.js';
import { chunkMessage, converseMessage, eventStreamMessage } from './event-stream-messages.js';

export const CLAUDE_ON_BEDROCK = 'anthropic.claude-3-5-haiku-20241022-v1:0';
export const NOVA_LITE = 'amazon.nova-lite-v1:0';

/** What one Bedrock exchange is made of. */
export interface BedrockBytes {
  operation: 'converse' | 'converse-stream' | 'invoke' | 'invoke-with-response-stream';
  /** The model id as the path names it (decoded). @default CLAUDE_ON_BEDROCK */
  model?: string;
  request: Record<string, unknown>;
  status?: number;
  headers?: Record<string, string>;
  /** A plain answer's JSON text. */
  body?: string;
  /** A streamed answer's messages, each arriving 5 ms after the one before. */
  messages?: Buffer[];
}

/** An exchange as the recorder writes one from these bytes (upstream `bedrock`). */
export function bedrockExchange(bytes: BedrockBytes): Exchange {
  const path = `/model/${encodeURIComponent(bytes.model ?? CLAUDE_ON_BEDROCK)}/${bytes.operation}`;
  const requestText = JSON.stringify(bytes.request);
  const contentType = bytes.messages === undefined ? 'application/json' : 'application/vnd.amazon.eventstream';
  const response: RecordedResponse = { status: bytes.status ?? 200, headers: { 'content-type': contentType, ...bytes.headers } };
  if (bytes.body !== undefined) response.body = encodeBody(Buffer.from(bytes.body), contentType, { exact: true })!;
  if (bytes.messages !== undefined) {
    const splitter = new FrameSplitter('eventstream');
    bytes.messages.forEach((message, index) => splitter.push(message, index * 5));
    response.stream = { format: 'eventstream', frames: splitter.finish(bytes.messages.length * 5) };
  }
  return {
    key: sha256Hex(`POST ${path} ${requestText}`),
    ordinal: 0,
    upstream: 'bedrock',
    source: 'live',
    recordedAt: '2026-12-01',
    request: {
      method: 'POST',
      path,
      query: [],
      headers: { 'content-type': 'application/json' },
      body: { json: bytes.request },
      bodySha256: sha256Hex(requestText),
    },
    response,
  };
}

/** A Converse request asking `text`, offering get_weather and get_time. */
export function converseRequest(text = 'Weather in Paris?'): Record<string, unknown> {
  const schema = { json: { type: 'object', properties: { city: { type: 'string' } } } };
  return {
    messages: [{ role: 'user', content: [{ text }] }],
    toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: schema } }, { toolSpec: { name: 'get_time', inputSchema: schema } }] },
  };
}

/** A ConverseStream that says a text, then asks for get_weather({city: Paris, days: 3}) and get_time({city: Paris}), the inputs in pieces. */
export function converseToolStream(): Buffer[] {
  return [
    converseMessage('messageStart', { role: 'assistant' }),
    converseMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'It is 14 degrees ' } }),
    converseMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'in Paris.' } }),
    converseMessage('contentBlockStop', { contentBlockIndex: 0 }),
    converseMessage('contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_fake_1', name: 'get_weather' } } }),
    converseMessage('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":"Pa' } } }),
    converseMessage('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: 'ris","days":3}' } } }),
    converseMessage('contentBlockStop', { contentBlockIndex: 1 }),
    converseMessage('contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_fake_2', name: 'get_time' } } }),
    converseMessage('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"city":"Paris"}' } } }),
    converseMessage('contentBlockStop', { contentBlockIndex: 2 }),
    converseMessage('messageStop', { stopReason: 'tool_use' }),
    converseMessage('metadata', { usage: { inputTokens: 40, outputTokens: 30, totalTokens: 70 }, metrics: { latencyMs: 321 } }),
  ];
}

/** A Converse body with a text and one tool use of get_weather({city: Paris}). */
export function converseToolBody(): string {
  return JSON.stringify({
    output: {
      message: {
        role: 'assistant',
        content: [{ text: 'Checking the weather.' }, { toolUse: { toolUseId: 'tooluse_fake_0', name: 'get_weather', input: { city: 'Paris' } } }],
      },
    },
    stopReason: 'tool_use',
    usage: { inputTokens: 30, outputTokens: 12, totalTokens: 42, cacheReadInputTokens: 5, cacheWriteInputTokens: 0 },
    metrics: { latencyMs: 412 },
  });
}

/** An InvokeModelWithResponseStream of Claude: Anthropic's stream events in chunks, a text then a tool use. */
export function claudeChunks(): Buffer[] {
  return [
    chunkMessage({
      type: 'message_start',
      message: {
        id: 'msg_bdrk_fake_0',
        type: 'message',
        role: 'assistant',
        model: 'claude-3-5-haiku-20241022',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 20, output_tokens: 1 },
      },
    }),
    chunkMessage({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    chunkMessage({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Paris is ' } }),
    chunkMessage({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'sunny.' } }),
    chunkMessage({ type: 'content_block_stop', index: 0 }),
    chunkMessage({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_fake_1', name: 'get_weather', input: {} } }),
    chunkMessage({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } }),
    chunkMessage({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }),
    chunkMessage({ type: 'content_block_stop', index: 1 }),
    chunkMessage({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 25 } }),
    chunkMessage({
      type: 'message_stop',
      'amazon-bedrock-invocationMetrics': { inputTokenCount: 20, outputTokenCount: 25, invocationLatency: 640, firstByteLatency: 310 },
    }),
  ];
}

/** Nova's InvokeModelWithResponseStream: Converse's events, each under its type's key, in chunks. */
export function novaChunks(): Buffer[] {
  return [
    chunkMessage({ messageStart: { role: 'assistant' } }),
    chunkMessage({ contentBlockDelta: { delta: { text: 'Hello from ' }, contentBlockIndex: 0 } }),
    chunkMessage({ contentBlockDelta: { delta: { text: 'Nova 2.' }, contentBlockIndex: 0 } }),
    chunkMessage({ contentBlockStop: { contentBlockIndex: 0 } }),
    chunkMessage({ messageStop: { stopReason: 'end_turn' } }),
    chunkMessage({
      metadata: { usage: { inputTokens: 12, outputTokens: 4 } },
      'amazon-bedrock-invocationMetrics': { inputTokenCount: 12, outputTokenCount: 4, invocationLatency: 200, firstByteLatency: 90 },
    }),
  ];
}

/** Bedrock's `modelStreamErrorException` message, as a stream breaks off with it. */
export function modelStreamError(): Buffer {
  return eventStreamMessage(
    {
      ':message-type': { type: 'string', value: 'exception' },
      ':exception-type': { type: 'string', value: 'modelStreamErrorException' },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    JSON.stringify({ message: 'Model Stream Error', originalStatusCode: 500, originalMessage: 'The model stream failed.' }),
  );
}
