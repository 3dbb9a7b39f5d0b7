import { readFileSync } from 'node:fs';
import OpenAI, { AzureOpenAI } from 'openai';
import { expect, test } from 'vitest';
import { FAKE_HEADER, FakeProvider } from 'modeltape/fake-provider';
import { closeAfterEach } from '../support/close-after-each.js';

// The unmodified `openai` package against the FakeProvider on Azure OpenAI's routes: AzureOpenAI
// over listen() (its endpoint server.baseUrls.azure) and in process (an Azure resource's host,
// fake.fetch), and an OpenAI client on Azure's v1 routes. Answers are OpenAI's, with Azure's
// annotations in the shapes of the samples in test/fixtures/azure/.

const started = closeAfterEach();
const apiVersion = '2024-10-21';
const FAKE_RESOURCE = 'https://modeltape-fake-resource.openai.azure.com';
const sample = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/azure/${name}`, import.meta.url), 'utf8')) as Record<string, any>;

/** The keys of each category's result: `{filtered, severity}` or `{filtered, detected}`, as a resource sends them. */
function shapeOf(results: Record<string, Record<string, unknown>>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(results).map(([category, result]) => [category, Object.keys(result).sort()]));
}

async function azureAgainst(fake: FakeProvider, options: { deployment?: string } = {}) {
  const server = started(await fake.listen({ port: 0 }));
  return { server, client: new AzureOpenAI({ endpoint: server.baseUrls.azure, apiKey: 'fake-azure-key', apiVersion, maxRetries: 0, ...options }) };
}

test('AzureOpenAI over listen(): a deployment route answers from the script, annotated as Azure annotates it and marked fake', async () => {
  const fake = new FakeProvider().willSay('Ahoy, the parrot is fine.');
  const { client } = await azureAgainst(fake, { deployment: 'gpt-4o-dev' });
  const { data: answer, response } = await client.chat.completions
    .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'How is the parrot?' }] })
    .withResponse();
  expect(answer.choices[0]!.message.content).toBe('Ahoy, the parrot is fine.');
  const annotated = answer as unknown as Record<string, any>;
  const real = sample('chat-completion-annotations.json');
  // The same fields as the documented sample: the prompt's annotations beside the choices, each choice's own.
  expect(annotated.prompt_filter_results).toHaveLength(1);
  expect(annotated.prompt_filter_results[0].prompt_index).toBe(0);
  const promptShape = shapeOf(annotated.prompt_filter_results[0].content_filter_results);
  const realPromptShape = shapeOf(real.prompt_filter_results[0].content_filter_results);
  for (const category of ['hate', 'jailbreak', 'self_harm', 'sexual', 'violence']) expect(promptShape[category]).toEqual(realPromptShape[category]);
  const choiceShape = shapeOf(annotated.choices[0].content_filter_results);
  for (const category of ['hate', 'protected_material_text', 'self_harm', 'sexual', 'violence'])
    expect(choiceShape[category]).toEqual(shapeOf(real.choices[0].content_filter_results)[category]);
  expect(Object.values(annotated.choices[0].content_filter_results).every((result: any) => result.filtered === false)).toBe(true);
  // Marked fake as every fake answer is: the header, the ids, the model; Azure's gateway request id too.
  expect(response.headers.get(FAKE_HEADER)).toBe('1');
  expect(response.headers.get('apim-request-id')).toBe('fake-req-0');
  expect(answer.id).toBe('fake-chatcmpl-0');
  expect(answer.model).toBe('fake-gpt-4o');
  expect(answer.system_fingerprint).toBe('fp_modeltape_fake');
  expect(fake.calls().map((call) => [call.path, call.api, call.status])).toEqual([
    [`/azure/openai/deployments/gpt-4o-dev/chat/completions?api-version=${apiVersion}`, 'openai-chat', 200],
  ]);
  expect(fake.calls()[0]!.headers['api-key']).toBeUndefined();
  expect([fake.asked()[0]!.provider, fake.asked()[0]!.api]).toEqual(['azure', 'openai-chat']);
  fake.assertConsumed();
});

test('a stream starts with the prompt annotations in a chunk of no choices, then OpenAI chunks with each choice’s results', async () => {
  const fake = new FakeProvider().willSay('One, two, three.');
  const { client } = await azureAgainst(fake, { deployment: 'gpt-4o-dev' });
  const stream = await client.chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Count to three' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks: Array<Record<string, any>> = [];
  for await (const chunk of stream) chunks.push(chunk as unknown as Record<string, any>);
  expect(chunks[0]).toMatchObject({ choices: [], id: '', object: '', model: '', created: 0, prompt_filter_results: [{ prompt_index: 0 }] });
  expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('One, two, three.');
  const content = chunks.filter((chunk) => typeof chunk.choices[0]?.delta?.content === 'string' && chunk.choices[0].delta.content !== '');
  expect(content.length).toBeGreaterThan(1);
  for (const chunk of content) expect(chunk.choices[0].content_filter_results.hate).toEqual({ filtered: false, severity: 'safe' });
  expect(chunks.find((chunk) => chunk.choices[0]?.delta?.role === 'assistant')!.choices[0].content_filter_results).toEqual({});
  expect(chunks.find((chunk) => chunk.choices[0]?.finish_reason === 'stop')!.choices[0].content_filter_results).toEqual({});
  expect(chunks.at(-1)!.usage.total_tokens).toBeGreaterThan(0);
  fake.assertConsumed();
});

test('embeddings and the Responses API on their Azure routes, the Responses answer with content_filters as a resource sends them', async () => {
  const fake = new FakeProvider().willSay('Word');
  const { client } = await azureAgainst(fake);
  const embedded = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['this is a test'] });
  expect(embedded.data[0]!.embedding).toHaveLength(8);
  const response = (await client.responses.create({ model: 'gpt-5.1', input: 'Say a word' })) as unknown as Record<string, any>;
  expect(response.output_text).toBe('Word');
  const real = sample('responses-text.json');
  expect(response.content_filters.map((entry: any) => Object.keys(entry))).toEqual(real.content_filters.map((entry: any) => Object.keys(entry)));
  expect(response.content_filters.map((entry: any) => [entry.source_type, entry.blocked])).toEqual([
    ['prompt', false],
    ['completion', false],
  ]);
  // Where a resource puts it: before `error`.
  expect(Object.keys(response).indexOf('content_filters')).toBe(Object.keys(response).indexOf('error') - 1);
  expect(fake.calls().map((call) => [call.path, call.api])).toEqual([
    [`/azure/openai/deployments/text-embedding-3-small/embeddings?api-version=${apiVersion}`, 'openai-embeddings'],
    [`/azure/openai/responses?api-version=${apiVersion}`, 'openai-responses'],
  ]);
  fake.assertConsumed();
});

test('a Responses stream carries content_filters null while in progress and the entries when it ends', async () => {
  const fake = new FakeProvider().willSay('Hello');
  const { client } = await azureAgainst(fake);
  const stream = await client.responses.create({ model: 'gpt-5.1', input: 'Say hello', stream: true });
  const seen: Array<[string, unknown]> = [];
  for await (const event of stream) if ('response' in event) seen.push([event.type, (event.response as unknown as Record<string, unknown>).content_filters]);
  expect(seen.map(([type, filters]) => [type, Array.isArray(filters) ? filters.length : filters])).toEqual([
    ['response.created', null],
    ['response.in_progress', null],
    ['response.completed', 2],
  ]);
});

test('in process: AzureOpenAI on a resource host by fake.fetch, and an OpenAI client on the v1 routes by fetch and by base URL', async () => {
  const fake = new FakeProvider().willSay('By fetch.').willSay('On v1 by fetch.').willSay('On v1 by URL.').willSay('Responses on v1.');
  const byFetch = new AzureOpenAI({
    endpoint: FAKE_RESOURCE,
    apiKey: 'fake-azure-key',
    apiVersion,
    deployment: 'gpt-4o-dev',
    fetch: fake.fetch,
    maxRetries: 0,
  });
  const first = await byFetch.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
  expect(first.choices[0]!.message.content).toBe('By fetch.');
  // Azure's v1 routes take the plain OpenAI client, the deployment as the model, the key as a bearer token.
  const v1ByFetch = new OpenAI({ baseURL: `${FAKE_RESOURCE}/openai/v1`, apiKey: 'fake-azure-key', fetch: fake.fetch, maxRetries: 0 });
  const second = (await v1ByFetch.chat.completions.create({ model: 'gpt-4o-dev', messages: [{ role: 'user', content: 'Hi' }] })) as unknown as Record<
    string,
    any
  >;
  expect(second.choices[0].message.content).toBe('On v1 by fetch.');
  expect(second.prompt_filter_results).toHaveLength(1);
  const server = started(await fake.listen({ port: 0 }));
  const v1ByUrl = new OpenAI({ baseURL: `${server.baseUrls.azure}/openai/v1`, apiKey: 'fake-azure-key', maxRetries: 0 });
  const third = (await v1ByUrl.chat.completions.create({ model: 'gpt-4o-dev', messages: [{ role: 'user', content: 'Hi' }] })) as unknown as Record<string, any>;
  expect([third.choices[0].message.content, third.choices[0].content_filter_results.violence]).toEqual([
    'On v1 by URL.',
    { filtered: false, severity: 'safe' },
  ]);
  const fourth = (await v1ByUrl.responses.create({ model: 'gpt-4o-dev', input: 'Hi' })) as unknown as Record<string, any>;
  expect([fourth.output_text, fourth.content_filters.length]).toEqual(['Responses on v1.', 2]);
  expect(fake.calls().map((call) => [call.path, call.api, call.status])).toEqual([
    // A request to a resource's host is Azure's, and is shown where baseUrls.azure would take it.
    [`/azure/openai/deployments/gpt-4o-dev/chat/completions?api-version=${apiVersion}`, 'openai-chat', 200],
    ['/azure/openai/v1/chat/completions', 'openai-chat', 200],
    ['/azure/openai/v1/chat/completions', 'openai-chat', 200],
    ['/azure/openai/v1/responses', 'openai-responses', 200],
  ]);
  // The v1 routes name the model in the body: the turn is the deployment's.
  expect(fake.asked().map((turn) => [turn.provider, turn.model])).toEqual([
    ['azure', 'gpt-4o'],
    ['azure', 'gpt-4o-dev'],
    ['azure', 'gpt-4o-dev'],
    ['azure', 'gpt-4o-dev'],
  ]);
  fake.assertConsumed();
});

test('an AzureOpenAI that read OPENAI_BASE_URL (the fake’s /v1) sends /v1/deployments/…?api-version, and gets Azure’s answer', async () => {
  const fake = new FakeProvider().willSay('Through OPENAI_BASE_URL.');
  const server = started(await fake.listen({ port: 0 }));
  const client = new AzureOpenAI({ baseURL: server.baseUrls.openai, apiKey: 'fake-azure-key', apiVersion, maxRetries: 0 });
  const answer = (await client.chat.completions.create({ model: 'gpt-4o-dev', messages: [{ role: 'user', content: 'Hi' }] })) as unknown as Record<string, any>;
  expect([answer.choices[0].message.content, answer.prompt_filter_results.length]).toEqual(['Through OPENAI_BASE_URL.', 1]);
  expect(fake.calls()[0]!.path).toBe(`/v1/deployments/gpt-4o-dev/chat/completions?api-version=${apiVersion}`);
});

test('a plain OpenAI request is not annotated: OpenAI’s own routes stay OpenAI’s', async () => {
  const fake = new FakeProvider().willSay('Plain.');
  const server = started(await fake.listen({ port: 0 }));
  const answer = (await new OpenAI({ baseURL: server.baseUrls.openai, apiKey: 'fake-key', maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Hi' }],
  })) as unknown as Record<string, any>;
  expect(answer.prompt_filter_results).toBeUndefined();
  expect(answer.choices[0].content_filter_results).toBeUndefined();
  expect(fake.asked()[0]!.provider).toBe('openai');
});
