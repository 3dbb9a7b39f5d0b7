import { describe, expect, test } from 'vitest';
import { FakeProvider, failures, type WireResponse } from 'modeltape/fake-provider';
import { validateAgainstSpec, type SpecProvider } from '../support/spec-validator.js';

// Every body and stream event the fake emits is checked against the providers' own OpenAPI
// specs (test/fixtures/specs, with the nullable fix-up). The shapes below cover each surface,
// plain and streamed, text, tools, parallel tools, text-before-tools, structured answers,
// HTTP failures and mid-stream errors.

const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const answerSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
};

type Script = (fake: FakeProvider) => void;
const scripts: Record<string, Script> = {
  text: (fake) => fake.willSay('Hello there, how are you today?'),
  'one tool': (fake) => fake.willCallTool('get_weather', { city: 'Paris' }),
  'parallel tools': (fake) => fake.willCallTool('get_weather', { city: 'Paris' }).willCallTool('get_weather', { city: 'Lyon' }),
  'text then tool': (fake) => fake.willCallTool('get_weather', { city: 'Paris' }, { saying: 'Let me check that.' }),
  structured: (fake) => fake.willAnswer({ city: 'Paris', temperature: 14 }),
  unscripted: () => undefined,
};

const requests = {
  chat: (stream: boolean, structured: boolean) => ({
    path: '/v1/chat/completions',
    body: {
      model: 'gpt-4o',
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      ...(structured
        ? { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: answerSchema, strict: true } } }
        : { tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather, strict: true } }] }),
    },
  }),
  responses: (stream: boolean, structured: boolean) => ({
    path: '/v1/responses',
    body: {
      model: 'gpt-4o',
      stream,
      instructions: 'Be brief.',
      input: 'Weather in Paris?',
      ...(structured
        ? { text: { format: { type: 'json_schema', name: 'answer', schema: answerSchema, strict: true } } }
        : { tools: [{ type: 'function', name: 'get_weather', parameters: weather, strict: true }] }),
    },
  }),
  messages: (stream: boolean, structured: boolean) => ({
    path: '/v1/messages',
    body: {
      model: 'claude-opus-4-8',
      max_tokens: 256,
      stream,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      ...(structured
        ? { output_config: { format: { type: 'json_schema', schema: answerSchema } } }
        : { tools: [{ name: 'get_weather', input_schema: weather }] }),
    },
  }),
};

const SCHEMAS = {
  chat: { provider: 'openai' as SpecProvider, body: 'CreateChatCompletionResponse', event: 'CreateChatCompletionStreamResponse', error: 'ErrorResponse' },
  responses: { provider: 'openai' as SpecProvider, body: 'Response', event: 'ResponseStreamEvent', error: 'ErrorResponse' },
  messages: { provider: 'anthropic' as SpecProvider, body: 'Message', event: 'MessageStreamEvent', error: 'ErrorResponse' },
};

let checked = 0;

// The one place the fake follows the wire rather than the spec: Anthropic text blocks carry no
// `citations` key, as the real API sends them (and @ai-sdk/anthropic rejects `citations: null`),
// while the spec lists it as required and nullable. It is filled in as null before validating.
function withAnthropicCitations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withAnthropicCitations);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) copy[name] = withAnthropicCitations(item);
  if (copy.type === 'text' && typeof copy.text === 'string' && !('citations' in copy)) copy.citations = null;
  return copy;
}

function check(provider: SpecProvider, schema: string, value: unknown, where: string): void {
  const result = validateAgainstSpec(provider, schema, provider === 'anthropic' ? withAnthropicCitations(value) : value);
  expect(result.errors, `${where} as ${provider} ${schema}: ${JSON.stringify(value).slice(0, 300)}`).toEqual([]);
  checked++;
}

/** Validates a wire response: its JSON body, or each event of its stream. */
function checkWire(surface: keyof typeof SCHEMAS, wire: WireResponse, where: string): number {
  const schemas = SCHEMAS[surface];
  const before = checked;
  if (wire.frames === undefined) {
    const body = JSON.parse(String(wire.body)) as unknown;
    check(schemas.provider, wire.status === 200 ? schemas.body : schemas.error, body, where);
    return checked - before;
  }
  for (const frame of wire.frames) {
    const text = String(frame);
    const event = /^event: (.+)$/m.exec(text)?.[1];
    const data = /^data: (.*)$/m.exec(text)![1]!;
    if (data === '[DONE]') continue;
    const value = JSON.parse(data) as Record<string, unknown>;
    // An error inside a stream: OpenAI chat sends {"error":{…}}, Anthropic an `event: error`.
    const isError = (surface === 'chat' && 'error' in value) || (surface === 'messages' && event === 'error');
    check(schemas.provider, isError ? schemas.error : schemas.event, value, `${where} ${event ?? 'chunk'}`);
    if (event !== undefined) expect(value.type, `${where}: the event line names the JSON type`).toBe(event);
  }
  return checked - before;
}

async function answer(script: Script, surface: keyof typeof requests, stream: boolean, structured: boolean): Promise<WireResponse> {
  const fake = new FakeProvider();
  script(fake);
  const request = requests[surface](stream, structured);
  return fake.handle({ method: 'POST', path: request.path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(request.body) });
}

describe('every response the fake emits validates against the provider specs', () => {
  for (const surface of ['chat', 'responses', 'messages'] as const) {
    for (const stream of [false, true]) {
      for (const [name, script] of Object.entries(scripts)) {
        test(`${surface}, ${stream ? 'streamed' : 'plain'}: ${name}`, async () => {
          const wire = await answer(script, surface, stream, name === 'structured' || (name === 'unscripted' && surface !== 'messages'));
          expect(wire.status).toBe(200);
          expect(checkWire(surface, wire, `${surface}/${stream}/${name}`)).toBeGreaterThan(0);
        });
      }
      for (const failure of [
        failures.rateLimited(),
        failures.serverError(),
        failures.unavailable(),
        failures.overloaded(),
        failures.streamError({ afterChunks: 3 }),
      ]) {
        test(`${surface}, ${stream ? 'streamed' : 'plain'}: failure ${failure.kind}`, async () => {
          const wire = await answer((fake) => fake.willFail(failure), surface, stream, false);
          expect(checkWire(surface, wire, `${surface}/${stream}/${failure.kind}`)).toBeGreaterThan(0);
        });
      }
    }
    test(`${surface}: a refusal`, async () => {
      const fake = new FakeProvider();
      const request = requests[surface](false, false);
      const body = surface === 'messages' ? { ...request.body, max_tokens: undefined } : { ...request.body, messages: [], input: 7 };
      const wire = await fake.handle({ method: 'POST', path: request.path, headers: {}, body: JSON.stringify(body) });
      expect(wire.status).toBe(400);
      expect(checkWire(surface, wire, `${surface}/refusal`)).toBe(1);
    });
  }

  test('embeddings (floats) and the model list', async () => {
    const fake = new FakeProvider();
    const embeddings = await fake.handle({
      method: 'POST',
      path: '/v1/embeddings',
      headers: {},
      body: JSON.stringify({ model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'float' }),
    });
    check('openai', 'CreateEmbeddingResponse', JSON.parse(String(embeddings.body)), 'embeddings');
    // The spec types `embedding` as numbers only, so base64 is checked decoded: same vectors.
    const base64 = await fake.handle({
      method: 'POST',
      path: '/v1/embeddings',
      headers: {},
      body: JSON.stringify({ model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'base64' }),
    });
    const decoded = JSON.parse(String(base64.body)) as { data: Array<{ embedding: string }> };
    const floats = JSON.parse(String(embeddings.body)) as { data: Array<{ embedding: number[] }> };
    const toFloats = (base64: string): number[] => {
      const bytes = Buffer.from(base64, 'base64');
      return [...new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)];
    };
    expect(decoded.data.map((item) => toFloats(item.embedding))).toEqual(floats.data.map((item) => item.embedding));
    const models = await fake.handle({ method: 'GET', path: '/v1/models', headers: {}, body: '' });
    check('openai', 'ListModelsResponse', JSON.parse(String(models.body)), 'models');
  });

  test('checked a few hundred bodies and events in all', () => {
    expect(checked).toBeGreaterThan(200);
  });
});
