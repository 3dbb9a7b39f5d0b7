import type { ProviderError } from '../provider-error.js';

/**
 * Bedrock Runtime's error body, `{"message": …}`, as AWS's JSON protocols send it. The error's
 * type travels in the `x-amzn-errortype` header ({@link bedrockErrorHeaders}), from which the
 * AWS SDK picks its exception class (`ThrottlingException`, `ValidationException`, …); a type it
 * does not model (`modeltape_replay_miss`) becomes the name of a `BedrockRuntimeServiceException`.
 */
export function bedrockErrorBody(error: ProviderError): Record<string, unknown> {
  return { message: error.message };
}

/** The header that names a Bedrock error's type, as the service sends it. */
export function bedrockErrorHeaders(type: string): Record<string, string> {
  return { 'x-amzn-errortype': BEDROCK_EXCEPTIONS.has(type) ? `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` : type };
}

/** The exceptions Bedrock Runtime models (its API reference), by the status each comes with. */
export const BEDROCK_EXCEPTION_STATUS: Readonly<Record<string, number>> = {
  AccessDeniedException: 403,
  InternalServerException: 500,
  ModelErrorException: 424,
  ModelNotReadyException: 429,
  ModelTimeoutException: 408,
  ResourceNotFoundException: 404,
  ServiceQuotaExceededException: 400,
  ServiceUnavailableException: 503,
  ThrottlingException: 429,
  ValidationException: 400,
};

const BEDROCK_EXCEPTIONS = new Set(Object.keys(BEDROCK_EXCEPTION_STATUS));
