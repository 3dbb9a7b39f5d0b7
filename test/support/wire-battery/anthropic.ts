// Anthropic's wire APIs in the battery: Messages, count_tokens and the model list, validated
// against Anthropic's published spec.
import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { expect } from 'vitest';
import { checkMessagesStreamGrammar } from '../../../providers/internal.js';
import {
  answerSchema,
  expectClientReading,
  replaying,
  settle,
  turnCases,
  vercelReading,
  vercelReads,
  weather,
  type ClientErrors,
  type WireAnswer,
  type WireApiUnderTest,
} from '../wire-conformance.js';

export const ANTHROPIC_ERRORS: ClientErrors = { apiError: Anthropic.APIError };

function anthropicClient(answer: WireAnswer): Anthropic {
  return new Anthropic({ apiKey: 'fake-key', baseURL: 'https://api.anthropic.com', fetch: replaying(answer), maxRetries: 0 });
}

/** Anthropic's error body: `{"type":"error","error":{type,message}}`. */
export function anthropicErrorShape(body: unknown): string[] {
  const record = body as { type?: unknown; error?: Record<string, unknown> } | null;
  if (record?.type !== 'error' || typeof record.error !== 'object' || record.error === null)
    return [`expected {"type":"error","error":{…}}, found ${JSON.stringify(body)?.slice(0, 120)}`];
  const problems: string[] = [];
  if (typeof record.error.type !== 'string' || !record.error.type.endsWith('_error')) problems.push('.error.type: expected a string ending in _error');
  if (typeof record.error.message !== 'string' || record.error.message === '') problems.push('.error.message: expected a non-empty string');
  return problems;
}

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

function conversation(tag: string, toolResults = false): unknown[] {
  return [
    { role: 'user', content: `Weather in Paris? (${tag})` },
    ...(toolResults
      ? [
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '14 °C' }] },
        ]
      : []),
  ];
}

export const messages: WireApiUnderTest = {
  api: 'anthropic-messages',
  upstream: 'anthropic',
  request: (shape) => ({
    method: 'POST',
    path: '/v1/messages',
    body: {
      model: 'claude-opus-4-8',
      // A Messages request without max_tokens is refused.
      ...(shape.refused ? {} : { max_tokens: 256 }),
      ...(shape.stream ? { stream: true } : {}),
      ...(shape.system ? { system: 'Be brief.' } : {}),
      messages: conversation(shape.tag, shape.toolResults),
      ...(shape.tools ? { tools: [{ name: 'get_weather', input_schema: weather }] } : {}),
      ...(shape.structured ? { output_config: { format: { type: 'json_schema', schema: answerSchema } } } : {}),
    },
  }),
  cases: turnCases(529),
  spec: { provider: 'anthropic', body: 'Message', event: 'MessageStreamEvent', error: 'ErrorResponse' },
  grammar: checkMessagesStreamGrammar,
  isErrorEvent: (event) => event.event === 'error',
  asSpecified: withAnthropicCitations,
  errorShape: anthropicErrorShape,
  async clients(answer, request, testCase) {
    const body = request.body as unknown as Anthropic.MessageCreateParams;
    expectClientReading('@anthropic-ai/sdk', await settle(() => anthropicClient(answer).messages.create(body)), testCase, ANTHROPIC_ERRORS);
    if (!vercelReads(testCase)) return 1;
    return 1 + (await vercelReading(createAnthropic({ apiKey: 'fake-key', fetch: replaying(answer) })('claude-opus-4-8'), testCase));
  },
};

export const countTokens: WireApiUnderTest = {
  api: 'anthropic-count-tokens',
  upstream: 'anthropic',
  request: (shape) => ({
    method: 'POST',
    path: '/v1/messages/count_tokens',
    body: {
      model: 'claude-opus-4-8',
      ...(shape.system ? { system: 'Be brief.' } : {}),
      // count_tokens refuses an empty conversation as Messages does.
      messages: shape.refused ? [] : conversation(shape.tag, shape.toolResults),
      ...(shape.tools ? { tools: [{ name: 'get_weather', input_schema: weather }] } : {}),
    },
  }),
  cases: [
    { name: 'a message', shape: { tag: 'count-text' }, outcome: 'answer' },
    { name: 'a system prompt, tools and tool results', shape: { system: true, tools: true, toolResults: true, tag: 'count-tools' }, outcome: 'answer' },
    { name: 'a refused request', shape: { refused: true, tag: 'refused' }, outcome: 'http-error', status: 400 },
  ],
  spec: { provider: 'anthropic', body: 'CountMessageTokensResponse', error: 'ErrorResponse' },
  errorShape: anthropicErrorShape,
  async clients(answer, request, testCase) {
    const body = request.body as unknown as Anthropic.MessageCountTokensParams;
    const reading = await settle(async () => {
      const counted = await anthropicClient(answer).messages.countTokens(body);
      expect(counted.input_tokens, 'input_tokens').toBeGreaterThan(0);
      return counted;
    });
    expectClientReading('@anthropic-ai/sdk', reading, testCase, ANTHROPIC_ERRORS);
    return 1;
  },
};

// `GET /v1/models` lists, `GET /v1/models/{id}` describes one, and a limit of 0 is refused.
const MODEL_PATHS: Record<string, string> = {
  list: '/v1/models',
  page: '/v1/models?limit=1&after_id=fake-claude-opus-4-8',
  one: '/v1/models/claude-opus-4-8',
  refused: '/v1/models?limit=0',
};

export const anthropicModels: WireApiUnderTest = {
  api: 'anthropic-models',
  upstream: 'anthropic',
  request: (shape) => ({ method: 'GET', path: MODEL_PATHS[shape.tag]! }),
  cases: [
    { name: 'the model list', shape: { tag: 'list' }, outcome: 'answer' },
    { name: 'a page of it', shape: { tag: 'page' }, outcome: 'answer' },
    { name: 'one model', shape: { tag: 'one' }, outcome: 'answer', bodySchema: 'ModelInfo' },
    { name: 'a refused limit', shape: { refused: true, tag: 'refused' }, outcome: 'http-error', status: 400 },
  ],
  spec: { provider: 'anthropic', body: 'ListResponse_ModelInfo_', error: 'ErrorResponse' },
  errorShape: anthropicErrorShape,
  async clients(answer, request, testCase) {
    const client = anthropicClient(answer);
    const reading = await settle(async () => {
      if (testCase.shape.tag === 'one') {
        const model = await client.models.retrieve('claude-opus-4-8');
        expect(model.type, 'a model').toBe('model');
        return model;
      }
      const query = new URLSearchParams(request.path.split('?')[1] ?? '');
      const page = await client.models.list({
        ...(query.has('limit') ? { limit: Number(query.get('limit')) } : {}),
        ...(query.has('after_id') ? { after_id: query.get('after_id')! } : {}),
      });
      expect(page.data.length, 'models listed').toBeGreaterThan(0);
      return page.data;
    });
    expectClientReading('@anthropic-ai/sdk', reading, testCase, ANTHROPIC_ERRORS);
    return 1;
  },
};
