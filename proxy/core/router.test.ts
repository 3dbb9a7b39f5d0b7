import { describe, expect, test } from 'vitest';
import { errorProviderOf, guessProvider, routeOf } from '../../providers/internal.js';
import { resolveProxyOptions } from './proxy-options.js';
import { routeRequest } from './router.js';
import { buildUpstreamTable, providerHosts, vertexUpstreamFor } from './upstream-table.js';

describe('routeRequest for Azure OpenAI', () => {
  const table = buildUpstreamTable({ azure: 'https://fake-resource.openai.azure.com' });
  const routed = (url: string) => {
    const route = routeRequest(url, table);
    if (!('path' in route)) throw new Error(`not routed: ${url}`);
    return { upstream: route.upstream.name, path: route.path, forwardPath: route.forwardPath };
  };

  test('takes /openai/v1/… with an api-version (AzureOpenAI under OPENAI_BASE_URL) to the azure upstream at /openai/…', () => {
    expect(routed('/openai/v1/deployments/gpt-4o-dev/chat/completions?api-version=2024-10-21')).toEqual({
      upstream: 'azure',
      path: '/openai/deployments/gpt-4o-dev/chat/completions',
      forwardPath: '/openai/deployments/gpt-4o-dev/chat/completions?api-version=2024-10-21',
    });
    expect(routed('/openai/v1/responses?api-version=2025-04-01-preview').path).toBe('/openai/responses');
  });

  test('takes /azure/… (AZURE_OPENAI_ENDPOINT) to the same path, and leaves OpenAI’s own requests to openai', () => {
    expect(routed('/azure/openai/deployments/gpt-4o-dev/chat/completions?api-version=2024-10-21')).toEqual({
      upstream: 'azure',
      path: '/openai/deployments/gpt-4o-dev/chat/completions',
      forwardPath: '/openai/deployments/gpt-4o-dev/chat/completions?api-version=2024-10-21',
    });
    expect(routed('/azure/openai/v1/chat/completions').path).toBe('/openai/v1/chat/completions');
    expect(routed('/openai/v1/chat/completions')).toEqual({ upstream: 'openai', path: '/v1/chat/completions', forwardPath: '/v1/chat/completions' });
    expect(routed('/openai/v1/chat/completions?api-versions=x').upstream).toBe('openai');
  });

  test('without an endpoint the azure upstream is there, marked unset, and its host is no guard entry', () => {
    const azure = buildUpstreamTable().get('azure')!;
    expect(azure.provider).toBe('azure');
    expect(azure.unset).toContain('AZURE_OPENAI_ENDPOINT');
    expect(table.get('azure')!.unset).toBeUndefined();
    const guarded = providerHosts(buildUpstreamTable());
    expect(guarded).toEqual(expect.arrayContaining(['*.openai.azure.com', '*.cognitiveservices.azure.com']));
    expect(guarded.filter((host) => host.endsWith('.invalid'))).toEqual([]);
  });

  test('the resource comes from AZURE_OPENAI_ENDPOINT, else from AZURE_RESOURCE_NAME (what @ai-sdk/azure reads), else from --upstream', () => {
    const azureOf = (env: Record<string, string>, upstreams: Record<string, string> = {}) =>
      resolveProxyOptions({ tape: '/tmp/azure.jsonl', mode: 'record', env, upstreams }).upstreams.get('azure')!.baseUrl;
    expect(azureOf({ AZURE_RESOURCE_NAME: 'fake-resource' })).toBe('https://fake-resource.openai.azure.com');
    expect(azureOf({ AZURE_RESOURCE_NAME: 'fake-resource', AZURE_OPENAI_ENDPOINT: 'https://other-resource.openai.azure.com/' })).toBe(
      'https://other-resource.openai.azure.com',
    );
    expect(azureOf({ AZURE_RESOURCE_NAME: 'fake-resource' }, { azure: 'https://given.openai.azure.com' })).toBe('https://given.openai.azure.com');
    // Not a resource name: nothing is made of it.
    expect(azureOf({ AZURE_RESOURCE_NAME: 'evil.example/x' })).toContain('.invalid');
  });
});

describe('routeRequest and routeOf for Bedrock Runtime', () => {
  const table = buildUpstreamTable();
  const claude = 'anthropic.claude-3-5-haiku-20241022-v1%3A0';
  const profile = 'arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-3-5-haiku-20241022-v1%3A0';

  test('takes /bedrock/model/{modelId}/{operation} to the bedrock upstream at the service’s own path, the model id left encoded as the SDK sent it', () => {
    for (const operation of ['converse', 'converse-stream', 'invoke', 'invoke-with-response-stream']) {
      for (const model of [claude, profile]) {
        const route = routeRequest(`/bedrock/model/${model}/${operation}`, table);
        if (!('path' in route)) throw new Error(`not routed: ${operation}`);
        expect(route.upstream).toMatchObject({ name: 'bedrock', provider: 'bedrock', baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com' });
        expect(route.forwardPath).toBe(`/model/${model}/${operation}`);
      }
    }
  });

  test('reads the operation, the decoded model id and whether it streams', () => {
    expect(routeOf('POST', `/model/${claude}/converse`)).toEqual({
      api: 'bedrock-converse',
      provider: 'bedrock',
      model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
      stream: false,
    });
    expect(routeOf('POST', `/model/${profile}/converse-stream`)).toMatchObject({
      api: 'bedrock-converse',
      model: 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0',
      stream: true,
    });
    expect(routeOf('POST', `/model/${claude}/invoke`)).toMatchObject({ api: 'bedrock-invoke', stream: false });
    expect(routeOf('POST', `/model/${claude}/invoke-with-response-stream`)).toMatchObject({ api: 'bedrock-invoke', stream: true });
    expect(routeOf('GET', `/model/${claude}/converse`)).toBeUndefined();
    expect(routeOf('POST', `/model/${claude}/converse`, 'bedrock')?.api).toBe('bedrock-converse');
    expect(routeOf('POST', '/v1/chat/completions', 'bedrock')).toBeUndefined();
  });

  test('every region’s endpoint is a provider host a replay refuses', () => {
    expect(providerHosts(table)).toEqual(expect.arrayContaining(['bedrock-runtime.*.amazonaws.com', 'bedrock-runtime-fips.*.amazonaws.com']));
  });
});

describe('the OpenAI-compatible presets', () => {
  const table = buildUpstreamTable();

  test('route by name to each host’s API base, read as OpenAI’s wire APIs', () => {
    const cases = [
      ['/groq/openai/v1/chat/completions', 'https://api.groq.com', '/openai/v1/chat/completions'],
      ['/openrouter/v1/chat/completions', 'https://openrouter.ai/api', '/api/v1/chat/completions'],
      ['/together/v1/chat/completions', 'https://api.together.xyz', '/v1/chat/completions'],
      ['/fireworks/v1/chat/completions', 'https://api.fireworks.ai/inference', '/inference/v1/chat/completions'],
      ['/deepseek/chat/completions', 'https://api.deepseek.com', '/chat/completions'],
      ['/mistral/v1/chat/completions', 'https://api.mistral.ai', '/v1/chat/completions'],
      ['/xai/v1/chat/completions', 'https://api.x.ai', '/v1/chat/completions'],
      ['/vllm/v1/chat/completions', 'http://127.0.0.1:8000', '/v1/chat/completions'],
      ['/lmstudio/v1/chat/completions', 'http://127.0.0.1:1234', '/v1/chat/completions'],
    ] as const;
    for (const [url, baseUrl, forwardPath] of cases) {
      const route = routeRequest(url, table);
      if (!('path' in route)) throw new Error(`not routed: ${url}`);
      expect([route.upstream.baseUrl, route.upstream.provider, route.forwardPath]).toEqual([baseUrl, 'openai', forwardPath]);
    }
    expect(cases).toHaveLength(9);
  });

  test('a replay refuses every hosted preset’s host (together-ai’s other host too), never a local server’s port unless it was given', () => {
    const hosts = providerHosts(table);
    for (const host of [
      'openrouter.ai',
      'api.groq.com',
      'api.together.xyz',
      'api.together.ai',
      'api.fireworks.ai',
      'api.deepseek.com',
      'api.mistral.ai',
      'api.x.ai',
    ])
      expect(hosts).toContain(host);
    expect(hosts).not.toContain('127.0.0.1:8000');
    expect(hosts).not.toContain('127.0.0.1:1234');
    // Given explicitly, a local server is an upstream like any other.
    expect(providerHosts(buildUpstreamTable({ vllm: 'http://127.0.0.1:8001' }))).toContain('127.0.0.1:8001');
  });
});

describe('routeRequest for Google Vertex AI', () => {
  const table = buildUpstreamTable();
  const gemini = (version: string, location: string, method: string) =>
    `/${version}/projects/fake-project/locations/${location}/publishers/google/models/gemini-2.5-flash:${method}`;
  const claude = (method: string, model = 'claude-sonnet-4-5@20250929') =>
    `/v1/projects/fake-project/locations/us-east5/publishers/anthropic/models/${model}:${method}`;

  test('reads Gemini’s methods and Anthropic’s rawPredict at Vertex paths as the wire APIs they carry, the route’s provider vertex', () => {
    expect(routeOf('POST', gemini('v1', 'us-central1', 'generateContent'))).toEqual({
      api: 'gemini-generate',
      provider: 'vertex',
      model: 'gemini-2.5-flash',
      stream: false,
    });
    expect(routeOf('POST', gemini('v1beta1', 'global', 'streamGenerateContent'))).toEqual({
      api: 'gemini-generate',
      provider: 'vertex',
      model: 'gemini-2.5-flash',
      stream: true,
    });
    expect(routeOf('POST', gemini('v1', 'europe-west4', 'countTokens'))).toEqual({ api: 'gemini-count-tokens', provider: 'vertex', model: 'gemini-2.5-flash' });
    expect(routeOf('POST', claude('rawPredict'))).toEqual({
      api: 'anthropic-messages',
      provider: 'vertex',
      model: 'claude-sonnet-4-5@20250929',
      stream: false,
    });
    expect(routeOf('POST', claude('streamRawPredict'))).toMatchObject({ api: 'anthropic-messages', stream: true });
    expect(routeOf('POST', claude('rawPredict', 'count-tokens'))).toEqual({ api: 'anthropic-count-tokens', provider: 'vertex' });
    expect(routeOf('POST', claude('predict'))).toBeUndefined();
    expect(routeOf('GET', gemini('v1', 'us-central1', 'generateContent'))).toBeUndefined();
    expect(routeOf('POST', '/v1/messages', 'vertex')).toBeUndefined();
    expect(guessProvider('vertex')).toBe('vertex');
    expect(guessProvider('mine', 'https://us-central1-aiplatform.googleapis.com')).toBe('vertex');
  });

  test('takes /vertex/… to the vertex upstream at the path as sent, and forwards to the host of the location the path names', () => {
    const route = routeRequest(`/vertex${gemini('v1', 'us-central1', 'generateContent')}`, table);
    if (!('path' in route)) throw new Error('not routed');
    expect(route.upstream).toMatchObject({ name: 'vertex', provider: 'vertex', baseUrl: 'https://aiplatform.googleapis.com' });
    expect(route.forwardPath).toBe(gemini('v1', 'us-central1', 'generateContent'));
    const hostOf = (path: string) => vertexUpstreamFor(route.upstream, path).origin;
    expect(hostOf(gemini('v1', 'us-central1', 'generateContent'))).toBe('https://us-central1-aiplatform.googleapis.com');
    expect(hostOf(claude('rawPredict'))).toBe('https://us-east5-aiplatform.googleapis.com');
    expect(hostOf(gemini('v1beta1', 'global', 'generateContent'))).toBe('https://aiplatform.googleapis.com');
    expect(hostOf(gemini('v1', 'eu', 'generateContent'))).toBe('https://aiplatform.eu.rep.googleapis.com');
    expect(hostOf('/v1/projects/p/locations/evil.example.com%2F/publishers/google/models/m:generateContent')).toBe('https://aiplatform.googleapis.com');
    expect(vertexUpstreamFor(route.upstream, gemini('v1', 'us-central1', 'generateContent')).name).toBe('vertex');
    // An upstream given (a stand-in, a gateway) is used as it is, whatever the location.
    const given = buildUpstreamTable({ vertex: 'http://127.0.0.1:9' }).get('vertex')!;
    expect(vertexUpstreamFor(given, gemini('v1', 'us-central1', 'generateContent'))).toBe(given);
  });

  test('answers its own errors in Google’s shape, but in Anthropic’s on an Anthropic model’s route', () => {
    expect(errorProviderOf('vertex', gemini('v1', 'us-central1', 'generateContent'))).toBe('vertex');
    expect(errorProviderOf('vertex', claude('rawPredict'))).toBe('anthropic');
    expect(errorProviderOf('vertex', claude('rawPredict', 'count-tokens'))).toBe('anthropic');
    expect(errorProviderOf('gemini', '/v1beta/models/m:generateContent')).toBe('gemini');
  });

  test('every location’s endpoint and Google’s token endpoint are provider hosts a replay refuses', () => {
    expect(providerHosts(table)).toEqual(
      expect.arrayContaining(['aiplatform.googleapis.com', '*-aiplatform.googleapis.com', 'aiplatform.*.rep.googleapis.com', 'oauth2.googleapis.com']),
    );
  });
});
