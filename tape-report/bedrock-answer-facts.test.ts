import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  CLAUDE_ON_BEDROCK,
  NOVA_LITE,
  bedrockExchange,
  claudeChunks,
  converseRequest,
  converseToolBody,
  converseToolStream,
  modelStreamError,
  novaChunks,
} from '../test/support/bedrock-exchanges.js';
import { converseMessage } from '../test/support/event-stream-messages.js';
import { answerFacts } from './answer-facts.js';

const sample = (name: string): string => readFileSync(new URL(`../test/fixtures/bedrock/${name}`, import.meta.url), 'utf8');
const invokeSample = (name: string): { headers: Record<string, string>; body: string } => {
  const { headers, body } = JSON.parse(sample(name)) as { headers: Record<string, string>; body: unknown };
  return { headers, body: JSON.stringify(body) };
};
const claudeRequest = { anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };

describe('what a recorded Bedrock answer shows', () => {
  test('Converse: the model from the path, the tool use, the stop reason in one vocabulary, usage with the cache read apart', () => {
    const captured = answerFacts(bedrockExchange({ operation: 'converse', request: converseRequest(), body: sample('converse-response.json') }));
    expect(captured).toMatchObject({
      api: 'bedrock-converse',
      model: CLAUDE_ON_BEDROCK,
      streamed: false,
      toolCalls: 0,
      rawFinish: 'end_turn',
      finish: 'stop',
      usage: { input: 22, cachedInput: 0, cacheWrite: 0, output: 57 },
    });
    expect(answerFacts(bedrockExchange({ operation: 'converse', request: converseRequest(), body: converseToolBody() }))).toMatchObject({
      toolCalls: 1,
      rawFinish: 'tool_use',
      finish: 'tool-calls',
      usage: { input: 30, cachedInput: 5, output: 12 },
    });
  });

  test('ConverseStream: its event frames read as one answer; a content filter and a stream that broke off', () => {
    expect(answerFacts(bedrockExchange({ operation: 'converse-stream', request: converseRequest(), messages: converseToolStream() }))).toMatchObject({
      streamed: true,
      toolCalls: 2,
      finish: 'tool-calls',
      streamError: false,
      usage: { input: 40, output: 30 },
    });
    const filtered = converseToolStream().slice(0, 4);
    filtered.push(
      converseMessage('messageStop', { stopReason: 'guardrail_intervened' }),
      converseMessage('metadata', { usage: { inputTokens: 3, outputTokens: 1 } }),
    );
    expect(answerFacts(bedrockExchange({ operation: 'converse-stream', request: converseRequest(), messages: filtered }))).toMatchObject({
      rawFinish: 'guardrail_intervened',
      finish: 'content-filter',
    });
    const broken = answerFacts(
      bedrockExchange({ operation: 'converse-stream', request: converseRequest(), messages: [...converseToolStream().slice(0, 3), modelStreamError()] }),
    );
    expect(broken).toMatchObject({ streamError: true, failed: true, finish: undefined, usage: undefined });
  });

  test("InvokeModel: a Claude body and its chunks read as Anthropic Messages, a Nova body and its chunks as Converse's", () => {
    expect(answerFacts(bedrockExchange({ operation: 'invoke', request: claudeRequest, ...invokeSample('invoke-claude-response.json') }))).toMatchObject({
      api: 'bedrock-invoke',
      model: CLAUDE_ON_BEDROCK,
      finish: 'stop',
      usage: { input: expect.any(Number), output: expect.any(Number) },
    });
    expect(answerFacts(bedrockExchange({ operation: 'invoke-with-response-stream', request: claudeRequest, messages: claudeChunks() }))).toMatchObject({
      streamed: true,
      toolCalls: 1,
      rawFinish: 'tool_use',
      finish: 'tool-calls',
      usage: { input: 20, output: 25 },
    });
    const nova = { model: NOVA_LITE, request: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] } };
    expect(answerFacts(bedrockExchange({ operation: 'invoke', ...nova, ...invokeSample('invoke-nova-response.json') }))).toMatchObject({
      model: NOVA_LITE,
      finish: 'stop',
      usage: { input: 9, output: 15 },
    });
    expect(answerFacts(bedrockExchange({ operation: 'invoke-with-response-stream', ...nova, messages: novaChunks() }))).toMatchObject({
      finish: 'stop',
      usage: { input: 12, output: 4 },
    });
  });

  test("another model's body reports its tokens through Bedrock's headers; a recorded throttle is its status", () => {
    const llama = answerFacts(
      bedrockExchange({
        operation: 'invoke',
        model: 'us.meta.llama3-3-70b-instruct-v1:0',
        request: { prompt: 'hi' },
        headers: { 'x-amzn-bedrock-input-token-count': '7', 'x-amzn-bedrock-output-token-count': '3' },
        body: JSON.stringify({ generation: 'Hi', stop_reason: 'stop' }),
      }),
    );
    expect(llama).toMatchObject({ model: 'us.meta.llama3-3-70b-instruct-v1:0', usage: { input: 7, output: 3 } });
    const throttled = answerFacts(bedrockExchange({ operation: 'converse', request: converseRequest(), status: 429, body: '{"message":"Too many requests"}' }));
    expect(throttled).toMatchObject({ status: 429, usage: undefined, finish: undefined });
  });
});
