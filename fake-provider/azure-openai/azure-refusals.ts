import { AZURE_ACCESS_DENIED } from '../../providers/internal.js';
import { errorResponse, type ErrorContext } from '../provider-errors.js';
import type { AzureRequest } from '../request-route.js';
import type { WireResponse } from '../wire-response.js';

/**
 * What an Azure OpenAI resource refuses before it reads a body: a request with neither an
 * `api-key` nor an `Authorization: Bearer …` (401, `{"error":{"code":"401","message":"Access
 * denied …"}}`), and a request on a route that is not a v1 route and carries no `api-version`
 * (404, `{"error":{"code":"404","message":"Resource not found"}}`, as a resource answers it). The
 * fake takes any key and any token: it checks that one was sent, not what it is.
 */
export function refuseAzureRequest(headers: Record<string, string>, azure: AzureRequest, context: ErrorContext): WireResponse | undefined {
  const key = headers['api-key'];
  const authorization = headers.authorization;
  const credential = (typeof key === 'string' && key.trim() !== '') || (typeof authorization === 'string' && /^Bearer\s+\S/i.test(authorization));
  if (!credential) return errorResponse('azure', { status: 401, type: '401', message: AZURE_ACCESS_DENIED }, context);
  if (!azure.v1 && azure.apiVersion === undefined) return errorResponse('azure', { status: 404, type: '404', message: 'Resource not found' }, context);
  return undefined;
}

/**
 * The OpenAI path an Azure one stands for, its query kept: `/openai/deployments/{d}/chat/completions`
 * and `/openai/v1/chat/completions` are `/v1/chat/completions`, `/openai/responses/{id}` is `/v1/responses/{id}`.
 */
export function openaiPathOf(azurePath: string, pathAndQuery: string): string {
  const query = pathAndQuery.includes('?') ? pathAndQuery.slice(pathAndQuery.indexOf('?')) : '';
  const rest = azurePath
    .replace(/^\/openai/, '')
    .replace(/^\/deployments\/[^/]+/, '')
    .replace(/^\/v1(?=\/)/, '');
  return `/v1${rest}${query}`;
}
