import { describe, expect, test } from 'vitest';
import { AZURE_IDENTITY_PATH, AZURE_PLACEHOLDER_TOKEN, azureIdentityReply } from './azure-identity.js';
import { carriesPlaceholderKey } from './placeholder-key.js';

describe('azureIdentityReply, the managed identity stand-in', () => {
  const now = () => Date.UTC(2026, 0, 1);
  const ask = (url: string, headers: Record<string, string> = { 'x-identity-header': 'modeltape-replay-placeholder' }, method = 'GET') =>
    azureIdentityReply(method, url, headers, now);

  test('answers App Service’s token request with a placeholder token for the resource asked, lasting a day', () => {
    const reply = ask(`${AZURE_IDENTITY_PATH}?api-version=2019-08-01&resource=https%3A%2F%2Fcognitiveservices.azure.com&client_id=fake-client`)!;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({
      access_token: AZURE_PLACEHOLDER_TOKEN,
      expires_on: String(Date.UTC(2026, 0, 1) / 1000 + 86400),
      resource: 'https://cognitiveservices.azure.com',
      token_type: 'Bearer',
      client_id: 'fake-client',
    });
    // A request that carries it is known for the placeholder: a miss in auto says a real credential is needed.
    expect(carriesPlaceholderKey({ authorization: `Bearer ${AZURE_PLACEHOLDER_TOKEN}` }, 'azure')).toBe(true);
  });

  test('refuses what App Service’s endpoint refuses, and leaves every other path alone', () => {
    expect(ask(`${AZURE_IDENTITY_PATH}?resource=r`, {})!.status).toBe(400);
    expect(ask(`${AZURE_IDENTITY_PATH}?api-version=2019-08-01`)!.status).toBe(400);
    expect(ask(`${AZURE_IDENTITY_PATH}?resource=r`, undefined, 'POST')!.status).toBe(405);
    expect(ask('/azure/openai/deployments/d/chat/completions?api-version=2024-10-21')).toBeUndefined();
    expect(ask(`${AZURE_IDENTITY_PATH}/more?resource=r`)).toBeUndefined();
  });
});
