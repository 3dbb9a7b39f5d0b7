import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { FakeProvider } from 'modeltape/fake-provider';

/** Obviously fake AWS credentials: the fake checks no signature. */
export const FAKE_AWS_CREDENTIALS = { accessKeyId: 'AKIDFAKEFAKEFAKEFAKE', secretAccessKey: 'fake-secret-access-key' };

/**
 * The real Bedrock Runtime client against `fake.listen()` on 127.0.0.1, port 0, with its own
 * default handler (HTTP/2 with prior knowledge to an `http://` endpoint), one attempt, so a
 * failure reaches the test as the SDK raised it. `close()` stops both.
 */
export async function bedrockAgainst(fake: FakeProvider): Promise<{ client: BedrockRuntimeClient; close(): Promise<void> }> {
  const server = await fake.listen({ port: 0 });
  const client = new BedrockRuntimeClient({
    endpoint: server.baseUrls.bedrock,
    region: 'us-east-1',
    credentials: FAKE_AWS_CREDENTIALS,
    maxAttempts: 1,
  });
  return {
    client,
    close: async () => {
      client.destroy();
      await server.close();
    },
  };
}

/** The headers of the last response `client` read, as its deserializer saw them (the fake's marker, Bedrock's counts). */
export function captureResponseHeaders(client: BedrockRuntimeClient): () => Record<string, string> {
  let headers: Record<string, string> = {};
  client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      headers = (result.response as { headers: Record<string, string> }).headers;
      return result;
    },
    { step: 'deserialize', name: 'captureResponseHeaders' },
  );
  return () => headers;
}
