import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { GoogleGenAI } from '@google/genai';
import { GoogleAuth } from 'google-auth-library';
import { expect, test } from 'vitest';
import { FakeProvider, failures } from 'modeltape/fake-provider';
import { placeholderGoogleCredentials } from 'modeltape/replay';
import { closeAfterEach } from '../support/close-after-each.js';

const started = closeAfterEach();
const SCOPES = 'https://www.googleapis.com/auth/cloud-platform';

// Vertex AI's clients, pointed at a listening fake, with the placeholder credentials whose token the fake hands out.
async function clients(fake: FakeProvider) {
  const server = started(await fake.listen());
  const credentials = placeholderGoogleCredentials(server.url);
  const gemini = new GoogleGenAI({
    vertexai: true,
    project: 'fake-project',
    location: 'us-central1',
    httpOptions: { baseUrl: server.baseUrls.vertex },
    googleAuthOptions: { credentials },
  });
  const claude = new AnthropicVertex({
    projectId: 'fake-project',
    region: 'us-east5',
    baseURL: `${server.baseUrls.vertex}/v1`,
    googleAuth: new GoogleAuth({ credentials, scopes: SCOPES }),
    maxRetries: 0,
  });
  return { gemini, claude };
}

test('@google/genai on Vertex AI gets the scripted Gemini answers, marked fake, its model read from the path', async () => {
  const fake = new FakeProvider().willSay('Hello from the fake.').willSay('One, two, three.');
  const { gemini } = await clients(fake);
  const answer = await gemini.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hi', config: { systemInstruction: 'Be brief.' } });
  expect(answer.text).toBe('Hello from the fake.');
  expect(answer.modelVersion).toBe('fake-gemini-2.5-flash');
  expect(answer.responseId).toMatch(/^fake-/);
  let streamed = '';
  for await (const chunk of await gemini.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Count' })) streamed += chunk.text ?? '';
  expect(streamed).toBe('One, two, three.');
  expect((await gemini.models.countTokens({ model: 'gemini-2.5-flash', contents: 'Count me' })).totalTokens).toBeGreaterThan(0);
  expect(fake.asked().map((turn) => [turn.api, turn.model, turn.stream])).toEqual([
    ['gemini-generate', 'gemini-2.5-flash', false],
    ['gemini-generate', 'gemini-2.5-flash', true],
  ]);
  expect(fake.calls().map((call) => call.path)).toEqual([
    '/v1beta1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
    '/v1beta1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    '/v1beta1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:countTokens',
  ]);
  // The placeholder token reached the fake; calls() never shows it.
  expect(JSON.stringify(fake.calls())).not.toContain('modeltape-replay-placeholder');
  fake.assertConsumed();
});

test('AnthropicVertex gets the scripted Claude answers at rawPredict and streamRawPredict, the model from the path, marked fake', async () => {
  const fake = new FakeProvider().willSay('Hello from the fake.').willCallTool('get_weather', { city: 'Paris' });
  const { claude } = await clients(fake);
  const model = 'claude-sonnet-4-5@20250929';
  const message = await claude.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
  expect(message.content).toEqual([{ type: 'text', text: 'Hello from the fake.' }]);
  expect(message.model).toBe(`fake-${model}`);
  expect(message.id).toMatch(/^fake-/);
  const tools = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } }];
  const streamed = await claude.messages.stream({ model, max_tokens: 64, tools, messages: [{ role: 'user', content: 'Weather?' }] }).finalMessage();
  expect(streamed.content).toMatchObject([{ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } }]);
  expect((await claude.messages.countTokens({ model, messages: [{ role: 'user', content: 'Count me' }] })).input_tokens).toBeGreaterThan(0);
  expect(fake.asked().map((turn) => [turn.api, turn.model, turn.stream])).toEqual([
    ['anthropic-messages', model, false],
    ['anthropic-messages', model, true],
  ]);
  expect(fake.calls().map((call) => call.path.replace(/^.*\/models\//, ''))).toEqual([
    `${model}:rawPredict`,
    `${model}:streamRawPredict`,
    'count-tokens:rawPredict',
  ]);
  fake.assertConsumed();
});

test('failures reach each client in its shape on Vertex’s paths: Google’s for Gemini, Anthropic’s for Claude', async () => {
  const fake = new FakeProvider().willFail(failures.rateLimited()).willFail(failures.rateLimited());
  const { gemini, claude } = await clients(fake);
  const geminiError = await gemini.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hi' }).then(
    () => undefined,
    (error: Error & { status?: number }) => error,
  );
  expect(geminiError?.status).toBe(429);
  expect(geminiError?.message).toContain('RESOURCE_EXHAUSTED');
  expect(geminiError?.message).toContain('modeltape FakeProvider');
  const claudeError = await claude.messages.create({ model: 'claude-sonnet-4-5@20250929', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).then(
    () => undefined,
    (error: Error & { status?: number; error?: { error?: { type?: string } } }) => error,
  );
  expect(claudeError?.status).toBe(429);
  expect(claudeError?.error?.error?.type).toBe('rate_limit_error');
  // A Claude body without anthropic_version is refused as Vertex refuses it.
  const response = await fetch(
    `${(await fake.listen().then(started)).url}/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }) },
  );
  expect(response.status).toBe(400);
  expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'anthropic_version: Field required' } });
});
