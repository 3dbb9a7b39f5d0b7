/**
 * The message a Bedrock event stream breaks off with: `:message-type: exception`, the exception's
 * type in `:exception-type` (lower camel case, as the service writes it:
 * `modelStreamErrorException`, `throttlingException`, `internalServerException`…), a JSON payload.
 * The AWS SDK raises it as that exception (`ModelStreamErrorException`) from the stream's iterator.
 * Headers in the order a captured `modelStreamErrorException` came in (see
 * test/fixtures/bedrock/README.md).
 */
export function bedrockStreamException(
  type: string,
  message: string,
  original?: { status: number; message: string },
): { headers: Record<string, string>; json: Record<string, unknown> } {
  return {
    headers: { ':message-type': 'exception', ':exception-type': type, ':content-type': 'application/json' },
    json: original === undefined ? { message } : { message, originalStatusCode: original.status, originalMessage: original.message },
  };
}
