import { describe, expect, test } from 'vitest';
import { routeRequest } from './router.js';
import { buildUpstreamTable, providerHosts } from './upstream-table.js';

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
});
