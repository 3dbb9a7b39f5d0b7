import { readFileSync } from 'node:fs';
import OpenAI, { APIError, AuthenticationError, AzureOpenAI, BadRequestError, NotFoundError, RateLimitError } from 'openai';
import { expect, test } from 'vitest';
import { FAKE_HEADER, FakeProvider, failures } from 'modeltape/fake-provider';
import { closeAfterEach } from '../support/close-after-each.js';

// What an Azure OpenAI resource refuses and how it fails, from the FakeProvider, through the
// unmodified AzureOpenAI: each body in the shape of its sample in test/fixtures/azure/.

const started = closeAfterEach();
const apiVersion = '2024-10-21';
const sample = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/azure/${name}`, import.meta.url), 'utf8')) as Record<string, any>;
const keysOf = (value: Record<string, unknown>) => Object.keys(value).sort();

async function azureAgainst(fake: FakeProvider, maxRetries = 0) {
  const server = started(await fake.listen({ port: 0 }));
  const client = new AzureOpenAI({ endpoint: server.baseUrls.azure, apiKey: 'fake-azure-key', apiVersion, deployment: 'gpt-4o-dev', maxRetries });
  return { server, client };
}

async function failureOf(call: Promise<unknown>): Promise<APIError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(APIError);
  return error as APIError;
}

const ask = (client: OpenAI, content = 'Hi') => client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] });

test('no api-key and no bearer token is a 401 in the resource’s shape; any key or token is taken', async () => {
  const fake = new FakeProvider();
  const { server } = await azureAgainst(fake);
  const url = `${server.baseUrls.azure}/openai/deployments/gpt-4o-dev/chat/completions?api-version=${apiVersion}`;
  const body = JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }] });
  const bare = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  expect(bare.status).toBe(401);
  const refusal = (await bare.json()) as Record<string, any>;
  expect(refusal).toEqual(sample('error-401.json'));
  expect(bare.headers.get(FAKE_HEADER)).toBe('1');
  // Through the SDK: an OpenAI client sends its key as a bearer token, which Azure's routes take too.
  const wrong = new OpenAI({ baseURL: `${server.baseUrls.azure}/openai/v1`, apiKey: 'fake-entra-token', maxRetries: 0 });
  expect((await ask(wrong)).choices[0]!.message.content).toContain('fake answer');
  const empty = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', authorization: 'Bearer ' } });
  expect(empty.status).toBe(401);
  const error = await failureOf(
    new OpenAI({
      baseURL: `${server.baseUrls.azure}/openai/v1`,
      apiKey: 'unused',
      defaultHeaders: { authorization: null },
      maxRetries: 0,
    }).chat.completions.create({
      model: 'gpt-4o-dev',
      messages: [{ role: 'user', content: 'Hi' }],
    }),
  );
  expect(error).toBeInstanceOf(AuthenticationError);
  expect(error.code).toBe('401');
  expect(fake.calls().map((call) => call.status)).toEqual([401, 200, 401, 401]);
});

test('a deployment route without api-version is the resource’s 404 Resource not found; a v1 route needs none', async () => {
  const fake = new FakeProvider().willSay('v1 needs no api-version.');
  const { server } = await azureAgainst(fake);
  // An OpenAI client given a deployment route as its base URL sends no api-version.
  const noVersion = new OpenAI({ baseURL: `${server.baseUrls.azure}/openai/deployments/gpt-4o-dev`, apiKey: 'fake-azure-key', maxRetries: 0 });
  const error = await failureOf(ask(noVersion));
  expect(error).toBeInstanceOf(NotFoundError);
  expect(error.error).toEqual(sample('error-404-resource-not-found.json').error);
  const v1 = new OpenAI({ baseURL: `${server.baseUrls.azure}/openai/v1`, apiKey: 'fake-azure-key', maxRetries: 0 });
  expect((await v1.chat.completions.create({ model: 'gpt-4o-dev', messages: [{ role: 'user', content: 'Hi' }] })).choices[0]!.message.content).toBe(
    'v1 needs no api-version.',
  );
  fake.assertConsumed();
});

test('a request OpenAI’s API refuses is refused in OpenAI’s shape, which Azure passes through', async () => {
  const fake = new FakeProvider();
  const { client } = await azureAgainst(fake);
  const error = await failureOf(client.chat.completions.create({ model: 'gpt-4o', messages: [] }));
  expect(error).toBeInstanceOf(BadRequestError);
  expect(keysOf(error.error as Record<string, unknown>)).toEqual(['code', 'message', 'param', 'type']);
  expect((error.error as Record<string, unknown>).type).toBe('invalid_request_error');
  expect(fake.asked()).toEqual([]);
});

test('failures.contentFilter(): the prompt refused with a 400 content_filter whose innererror names the category', async () => {
  const fake = new FakeProvider().willFail(failures.contentFilter({ category: 'self_harm', severity: 'medium' })).willFail(failures.contentFilter());
  const { client } = await azureAgainst(fake);
  const error = await failureOf(ask(client, 'Something blocked'));
  expect(error).toBeInstanceOf(BadRequestError);
  expect(error.status).toBe(400);
  expect(error.code).toBe('content_filter');
  const real = sample('error-400-content-filter.json').error;
  expect(error.error).toEqual(real);
  const byDefault = await failureOf(ask(client, 'Something else blocked'));
  expect((byDefault.error as any).innererror.content_filter_result.hate).toEqual({ filtered: true, severity: 'high' });
  fake.assertConsumed();
});

test('failures.contentFilter() on a route that is not Azure’s is the fake’s 422 naming what fits', async () => {
  const fake = new FakeProvider().willFail(failures.contentFilter());
  const server = started(await fake.listen({ port: 0 }));
  const error = await failureOf(ask(new OpenAI({ baseURL: server.baseUrls.openai, apiKey: 'fake-key', maxRetries: 0 })));
  expect(error.status).toBe(422);
  expect(error.message).toContain("failures.contentFilter() is Azure OpenAI's refusal of a prompt its content filter blocks");
  expect(error.message).toContain("Script finish: 'content-filter'");
});

test('finish content-filter: the choice ends content_filter with the category that filtered it, plain and streamed', async () => {
  const fake = new FakeProvider().willSay('', { finish: 'content-filter' }).willSay('Up to the cut', { finish: 'content-filter' });
  const { client } = await azureAgainst(fake);
  const plain = (await ask(client)) as unknown as Record<string, any>;
  expect(plain.choices[0].finish_reason).toBe('content_filter');
  // Nothing before the cut: no content at all, as a resource answers a filtered completion.
  expect(plain.choices[0].message.content).toBeNull();
  expect(plain.choices[0].content_filter_results.hate).toEqual({ filtered: true, severity: 'high' });
  expect(plain.choices[0].content_filter_results.violence).toEqual({ filtered: false, severity: 'safe' });
  const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream: true });
  const chunks: Array<Record<string, any>> = [];
  for await (const chunk of stream) chunks.push(chunk as unknown as Record<string, any>);
  expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('Up to the cut');
  const last = chunks.find((chunk) => chunk.choices[0]?.finish_reason === 'content_filter')!;
  expect(last.choices[0].content_filter_results.hate).toEqual({ filtered: true, severity: 'high' });
  fake.assertConsumed();
});

test('a rate limit is the resource’s 429, saying in its message and in retry-after-ms and retry-after when to retry', async () => {
  const fake = new FakeProvider()
    .willFail(failures.rateLimited({ retryAfterMs: 3000 }))
    .willFail(failures.rateLimited())
    .willSay('After the retry.');
  const { client, server } = await azureAgainst(fake);
  const error = await failureOf(ask(client));
  expect(error).toBeInstanceOf(RateLimitError);
  expect(error.headers?.get('retry-after-ms')).toBe('3000');
  expect(error.headers?.get('retry-after')).toBe('3');
  expect(keysOf(error.error as Record<string, unknown>)).toEqual(keysOf(sample('error-429.json').error));
  expect(error.code).toBe('429');
  expect((error.error as Record<string, string>).message).toMatch(/Please retry after 3 seconds\..*\(modeltape FakeProvider\)$/);
  // The SDK retries a 429 at once when told 0 ms, and the retry takes the next step.
  const retrying = new AzureOpenAI({ endpoint: server.baseUrls.azure, apiKey: 'fake-azure-key', apiVersion, deployment: 'gpt-4o-dev', maxRetries: 1 });
  expect((await ask(retrying)).choices[0]!.message.content).toBe('After the retry.');
  expect(fake.calls().map((call) => call.status)).toEqual([429, 429, 200]);
  fake.assertConsumed();
});

test('a server error and a broken stream are OpenAI’s, as Azure passes them through', async () => {
  const fake = new FakeProvider().willFail(failures.serverError({ retryAfterMs: null })).willFail(failures.streamError({ afterChunks: 2 }));
  const { client } = await azureAgainst(fake);
  const error = await failureOf(ask(client));
  expect([error.status, (error.error as Record<string, unknown>).type]).toEqual([500, 'server_error']);
  const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream: true });
  const broken = await (async () => {
    for await (const _chunk of stream);
  })().then(
    () => undefined,
    (caught: Error) => caught.message,
  );
  expect(broken).toContain('The server had an error while processing your request. (modeltape FakeProvider)');
});
