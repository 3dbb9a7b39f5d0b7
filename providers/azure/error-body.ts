import { openaiErrorBody } from '../openai/error-body.js';
import type { ProviderError } from '../provider-error.js';

/**
 * Azure OpenAI's error bodies. The model's own errors (a bad parameter) pass through in OpenAI's
 * shape, `{"error":{"message","type","param","code"}}`, and so do modeltape's (a replay miss).
 * The resource's own errors are `{"error":{"code","message"}}` with the status as the code: `401`
 * (no or a wrong key), `404` (`Resource not found`: no api-version on a deployment route, or no
 * such deployment), `429` (a rate limit, which says in seconds when to retry); they are the errors
 * whose type is a status ({@link AZURE_OWN_ERROR}). A prompt its content filter blocks is a 400
 * whose `innererror` names the policy and the results (an error with an `innererror`).
 */
export function azureErrorBody(error: ProviderError): Record<string, unknown> {
  if (error.innererror !== undefined)
    return {
      error: {
        message: error.message,
        type: null,
        param: error.param ?? 'prompt',
        code: error.code ?? 'content_filter',
        status: error.status,
        innererror: error.innererror,
      },
    };
  if (AZURE_OWN_ERROR.test(error.type) && error.fromModeltape !== true) return { error: { code: error.type, message: error.message } };
  return openaiErrorBody(error);
}

/** The type of a resource's own error: its status, as the body's `code` says it (`"401"`, `"404"`, `"429"`). */
export const AZURE_OWN_ERROR = /^[1-5]\d\d$/;

/** What a resource answers a request with neither an `api-key` nor an `Authorization: Bearer` token. */
export const AZURE_ACCESS_DENIED =
  'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';
