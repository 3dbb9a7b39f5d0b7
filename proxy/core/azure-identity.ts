import type { IncomingHttpHeaders } from 'node:http';
import { REPLAY_PLACEHOLDER_KEY } from './placeholder-key.js';

/**
 * The proxy's stand-in for a managed identity endpoint, where `modeltape run` points
 * `IDENTITY_ENDPOINT` in replay: `@azure/identity`'s `ManagedIdentityCredential` (and
 * `DefaultAzureCredential`, which replay sets to use it alone) asks it for an Entra ID token as
 * it asks Azure App Service's, over plain HTTP on loopback, and gets a placeholder. The
 * placeholder reaches nothing but the proxy: replay answers from the tape, whose lines never hold
 * an `Authorization` header.
 */
export const AZURE_IDENTITY_PATH = '/_modeltape/azure-identity/token';

/** The token the stand-in gives: not shaped like an Entra token, and marked as the replay placeholder (see carriesPlaceholderKey). */
export const AZURE_PLACEHOLDER_TOKEN = `${REPLAY_PLACEHOLDER_KEY}-entra-token`;

// How long the placeholder says it lasts: a day, so no client asks again in a run.
const LIFETIME_SECONDS = 24 * 3600;

/**
 * The answer to a request on {@link AZURE_IDENTITY_PATH}, or undefined for any other path. It
 * answers as App Service's identity endpoint (api-version 2019-08-01) does: `GET ?resource=…`
 * with the `X-IDENTITY-HEADER` the endpoint was given, `{access_token, expires_on, resource,
 * token_type, client_id}`; without the header, the 400 such an endpoint answers.
 */
export function azureIdentityReply(
  method: string,
  url: string,
  headers: IncomingHttpHeaders,
  now: () => number = Date.now,
): { status: number; headers: Record<string, string>; body: string } | undefined {
  const [path, query = ''] = url.split('?') as [string, string?];
  if (path !== AZURE_IDENTITY_PATH) return undefined;
  const json = (status: number, value: unknown) => {
    const body = JSON.stringify(value);
    return { status, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, body };
  };
  const params = new URLSearchParams(query);
  const resource = params.get('resource');
  if (method.toUpperCase() !== 'GET')
    return json(405, { error: 'invalid_request', error_description: `modeltape's managed identity stand-in answers GET, not ${method}.` });
  if (typeof headers['x-identity-header'] !== 'string' || headers['x-identity-header'] === '')
    return json(400, { error: 'invalid_request', error_description: 'The X-IDENTITY-HEADER header is missing (modeltape managed identity stand-in).' });
  if (resource === null || resource === '')
    return json(400, { error: 'invalid_request', error_description: 'The resource parameter is missing (modeltape managed identity stand-in).' });
  return json(200, {
    access_token: AZURE_PLACEHOLDER_TOKEN,
    expires_on: String(Math.floor(now() / 1000) + LIFETIME_SECONDS),
    resource,
    token_type: 'Bearer',
    client_id: params.get('client_id') ?? REPLAY_PLACEHOLDER_KEY,
  });
}
