import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { recordedExchange } from '../mutation/operators/check-mutation.js';
import { answerFacts } from './answer-facts.js';

// Real wire samples (their provenance: test/fixtures/mutation/PROVENANCE.md).
const fixture = (name: string): string => readFileSync(new URL(`../test/fixtures/mutation/${name}`, import.meta.url), 'utf8');
// Data payloads framed as the SSE the providers send.
const framed = (name: string): string =>
  fixture(name)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `data: ${line}\r\n\r\n`)
    .join('');
const chat = { upstream: 'openai', path: '/v1/chat/completions', request: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] } };
const messages = {
  upstream: 'anthropic',
  path: '/v1/messages',
  request: { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
};

describe('what a recorded answer shows, per wire API', () => {
  test('OpenAI chat: tool calls counted once each, streamed by their index, and usage from the last chunk', () => {
    const plain = answerFacts(recordedExchange({ ...chat, body: fixture('openai/chat-completion-parallel-tool-calls.json') }));
    expect(plain).toMatchObject({ api: 'openai-chat', model: 'gpt-4o', streamed: false, toolCalls: 2, rawFinish: 'tool_calls', finish: 'tool-calls' });
    const streamed = answerFacts(
      recordedExchange({
        ...chat,
        request: { ...chat.request, stream: true },
        stream: { text: fixture('openai/chat-stream-parallel-tool-calls.sse'), format: 'sse' },
      }),
    );
    expect(streamed).toMatchObject({ streamed: true, toolCalls: 2, finish: 'tool-calls', usage: { input: 48, cachedInput: 0, output: 19 } });
  });

  test('OpenAI chat: structured output is read from the request, a refusal from the answer, cached input apart from fresh', () => {
    const structured = answerFacts(
      recordedExchange({
        ...chat,
        request: { ...chat.request, response_format: { type: 'json_schema', json_schema: { name: 'city', schema: { type: 'object' } } } },
        body: fixture('openai/chat-completion-structured.json'),
      }),
    );
    expect(structured.structured).toBe(true);
    const refusal = answerFacts(
      recordedExchange({
        ...chat,
        body: JSON.stringify({
          choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: "I can't help with that." }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 100, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 80 } },
        }),
      }),
    );
    expect(refusal).toMatchObject({ refused: true, finish: 'refusal', rawFinish: 'stop', usage: { input: 20, cachedInput: 80, cacheWrite: 0, output: 7 } });
  });

  test('OpenAI Responses: function calls, an incomplete answer is a length finish, a failed one a recorded failure', () => {
    const responses = { upstream: 'openai', path: '/v1/responses', request: { model: 'gpt-5', input: 'hi' } };
    expect(answerFacts(recordedExchange({ ...responses, body: fixture('openai/responses-function-call-parallel.json') }))).toMatchObject({
      toolCalls: 2,
      finish: 'tool-calls',
      usage: { input: 291, output: 23 },
    });
    expect(
      answerFacts(
        recordedExchange({
          ...responses,
          request: { ...responses.request, stream: true },
          stream: { text: framed('openai/responses-stream-tool-call.data.jsonl'), format: 'sse' },
        }),
      ),
    ).toMatchObject({ streamed: true, toolCalls: 1, finish: 'tool-calls' });
    const incomplete = answerFacts(
      recordedExchange({
        ...responses,
        body: JSON.stringify({
          object: 'response',
          status: 'incomplete',
          incomplete_details: { reason: 'max_output_tokens' },
          output: [],
          usage: { input_tokens: 5, output_tokens: 16 },
        }),
      }),
    );
    expect(incomplete).toMatchObject({ rawFinish: 'max_output_tokens', finish: 'length', failed: false });
    // A background response polled to its end: failed, with no usage, and not a stream.
    const failed = answerFacts(
      recordedExchange({
        ...responses,
        body: JSON.stringify({ object: 'response', status: 'failed', error: { code: 'server_error', message: 'x' }, output: [], usage: null }),
      }),
    );
    expect(failed).toMatchObject({ failed: true, streamError: false, usage: undefined });
  });

  test('Anthropic: tool_use blocks of a stream, cache reads and writes, max_tokens, a refusal and an error event', () => {
    const streamed = answerFacts(
      recordedExchange({
        ...messages,
        request: { ...messages.request, stream: true },
        stream: { text: fixture('anthropic/stream-parallel-tool-use.sse'), format: 'sse' },
      }),
    );
    expect(streamed).toMatchObject({ toolCalls: 2, rawFinish: 'tool_use', finish: 'tool-calls', usage: { input: 377, output: 65 } });
    const body = (stop: string) =>
      JSON.stringify({
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: 'x' }],
        stop_reason: stop,
        usage: { input_tokens: 10, cache_read_input_tokens: 300, cache_creation_input_tokens: 40, output_tokens: 5 },
      });
    expect(answerFacts(recordedExchange({ ...messages, body: body('max_tokens') }))).toMatchObject({
      finish: 'length',
      usage: { input: 10, cachedInput: 300, cacheWrite: 40, output: 5 },
    });
    expect(answerFacts(recordedExchange({ ...messages, body: body('refusal') }))).toMatchObject({ refused: true, finish: 'refusal' });
    const broken = answerFacts(
      recordedExchange({
        ...messages,
        request: { ...messages.request, stream: true },
        stream: {
          text: 'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":9,"output_tokens":1}}}\n\nevent: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
          format: 'sse',
        },
      }),
    );
    expect(broken).toMatchObject({ streamError: true, failed: true, usage: { input: 9, output: 1 } });
    // A server tool (web search) ran at Anthropic: the answer finished normally, with no call for the code.
    const searched = answerFacts(
      recordedExchange({
        ...messages,
        body: JSON.stringify({
          type: 'message',
          content: [
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'weather' } },
            { type: 'text', text: 'Sunny.' },
          ],
          stop_reason: 'end_turn',
          usage: { input_tokens: 5, output_tokens: 2 },
        }),
      }),
    );
    expect(searched).toMatchObject({ toolCalls: 0, finish: 'stop' });
  });

  test('Gemini: function calls, thoughts counted as output, SAFETY a filter and a blocked prompt a refusal', () => {
    const gemini = {
      upstream: 'gemini',
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
      request: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    };
    expect(answerFacts(recordedExchange({ ...gemini, body: fixture('gemini/generate-content-parallel-tool-calls.json') }))).toMatchObject({
      model: 'gemini-2.5-flash',
      toolCalls: 2,
      finish: 'tool-calls',
      usage: { input: 29, output: 15 + 893 },
    });
    expect(answerFacts(recordedExchange({ ...gemini, body: JSON.stringify({ candidates: [{ finishReason: 'SAFETY' }] }) })).finish).toBe('content-filter');
    expect(answerFacts(recordedExchange({ ...gemini, body: JSON.stringify({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } }) }))).toMatchObject({
      refused: true,
      finish: 'refusal',
    });
  });

  test('Ollama: tool calls of a chat and the counts of a streamed generate', () => {
    expect(
      answerFacts(
        recordedExchange({
          upstream: 'ollama',
          path: '/api/chat',
          request: { model: 'llama3.2', messages: [], stream: false },
          body: fixture('ollama/chat-parallel-tool-calls.json'),
        }),
      ),
    ).toMatchObject({ api: 'ollama-chat', toolCalls: 2, finish: 'tool-calls', usage: { input: 122, output: 33 } });
    expect(
      answerFacts(
        recordedExchange({
          upstream: 'ollama',
          path: '/api/generate',
          request: { model: 'granite3.3:2b', prompt: 'hi' },
          stream: { text: fixture('ollama/generate-stream-text.ndjson'), format: 'ndjson' },
        }),
      ),
    ).toMatchObject({ streamed: true, toolCalls: 0, finish: 'stop', usage: { input: 51, output: 64 } });
  });

  test('an error status has no answer to read, and a path no provider has is no wire API', () => {
    const limited = answerFacts(
      recordedExchange({ ...chat, status: 429, body: JSON.stringify({ error: { type: 'rate_limit_exceeded', message: 'slow down' } }) }),
    );
    expect(limited).toMatchObject({ status: 429, toolCalls: 0, finish: undefined, usage: undefined });
    expect(answerFacts(recordedExchange({ upstream: 'openai', path: '/v1/unknown', request: { model: 'x' }, body: '{}' }))).toMatchObject({
      api: undefined,
      model: 'x',
    });
  });
});
