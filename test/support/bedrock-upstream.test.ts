import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  ModelStreamErrorException,
  ThrottlingException,
  ValidationException,
  type ConverseStreamOutput,
  type ResponseStream,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import { HttpRequest } from '@smithy/core/protocols';
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { closeAfterEach } from './close-after-each.js';
import { NodeSha256, startBedrockUpstream, type BedrockUpstreamOptions } from './bedrock-upstream.js';

// The real BedrockRuntimeClient against the stand-in, directly (no proxy). The SDK's default
// handler speaks HTTP/2 with prior knowledge to an http:// endpoint; the stand-in is HTTP/1.1,
// as the proxy will talk to it, so these tests hand the SDK an HTTP/1.1 NodeHttpHandler.

const started = closeAfterEach();
const CLAUDE = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const NOVA = 'amazon.nova-lite-v1:0';
// Built at runtime so no file holds an access-key-shaped literal (see fake-keys.ts).
const ACCESS_KEY_ID = ['AKIA', 'FAKE'.repeat(4)].join('');
const SECRET = `fake-secret-${'0'.repeat(28)}`;

beforeAll(() => {
  // The credentials are given, but never let the default chain probe the instance metadata server.
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
  return () => vi.unstubAllEnvs();
});

async function standIn(options: Partial<BedrockUpstreamOptions> = {}) {
  return started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, ...options }));
}

function client(
  endpoint: string,
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } = { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET },
) {
  const sdk = new BedrockRuntimeClient({ endpoint, region: 'us-east-1', credentials, requestHandler: new NodeHttpHandler(), maxAttempts: 1 });
  started({ close: async () => sdk.destroy() });
  return sdk;
}

const ask = (text: string) => [{ role: 'user' as const, content: [{ text }] }];

async function collect<T>(stream: AsyncIterable<T> | undefined): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream ?? []) events.push(event);
  return events;
}

describe('the Bedrock Runtime stand-in', () => {
  it('answers Converse with the captured sample, to a request signed over the double-encoded path', async () => {
    const bedrock = await standIn();
    const answer = await client(bedrock.url).send(new ConverseCommand({ modelId: CLAUDE, messages: ask('How many r in strawberry?') }));
    expect(answer.output?.message?.content?.[0]?.text).toContain('There are **3**');
    expect(answer).toMatchObject({ stopReason: 'end_turn', usage: { inputTokens: 22, outputTokens: 57, totalTokens: 79 }, metrics: { latencyMs: 1864 } });
    expect(answer.$metadata.requestId).toBe('fake-bedrock-request-0');

    const [received] = bedrock.requests;
    expect(bedrock.requests).toHaveLength(1);
    expect(received).toMatchObject({
      method: 'POST',
      path: '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse',
      operation: 'converse',
      modelId: CLAUDE,
    });
    expect(received!.rejectedWith).toBeUndefined();
    expect(received!.headers.host).toBe(bedrock.host);
    expect(received!.headers.authorization).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${ACCESS_KEY_ID}/\\d{8}/us-east-1/bedrock/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$`),
    );
    expect(JSON.parse(received!.body)).toEqual({ messages: ask('How many r in strawberry?') });
  });

  it('answers Converse with a tool use', async () => {
    const bedrock = await standIn({ answer: () => ({ kind: 'tool-use', name: 'get_weather', input: { city: 'Lyon' }, toolUseId: 'tooluse_fake_7' }) });
    const answer = await client(bedrock.url).send(new ConverseCommand({ modelId: CLAUDE, messages: ask('Weather in Lyon?') }));
    expect(answer.stopReason).toBe('tool_use');
    expect(answer.output?.message?.content).toEqual([{ toolUse: { toolUseId: 'tooluse_fake_7', name: 'get_weather', input: { city: 'Lyon' } } }]);
  });

  it('streams ConverseStream as separate event-stream frames the SDK decodes', async () => {
    const bedrock = await standIn();
    const answer = await client(bedrock.url).send(new ConverseStreamCommand({ modelId: CLAUDE, messages: ask('How many r in strawberry?') }));
    const events: ConverseStreamOutput[] = await collect(answer.stream);
    expect(events.map((event) => Object.keys(event)[0])).toEqual([
      'messageStart',
      ...Array<string>(12).fill('contentBlockDelta'),
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    const text = events.map((event) => event.contentBlockDelta?.delta?.text ?? '').join('');
    expect(text).toBe('Let me count the "r"s in "strawberry":\n\ns-t-**r**-a-w-b-e-**r**-**r**-y\n\nThere are **3** r\'s in "strawberry."');
    expect(events.at(-2)?.messageStop?.stopReason).toBe('end_turn');
    expect(events.at(-1)?.metadata?.usage).toMatchObject({ inputTokens: 22, outputTokens: 55, totalTokens: 77 });
    expect(bedrock.requests[0]!.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream');
  });

  it('streams scripted text through ConverseStream', async () => {
    const bedrock = await standIn({ answer: () => ({ kind: 'text', text: 'One two three.' }) });
    const answer = await client(bedrock.url).send(new ConverseStreamCommand({ modelId: CLAUDE, messages: ask('Count') }));
    const deltas = (await collect(answer.stream)).flatMap((event) =>
      event.contentBlockDelta?.delta?.text === undefined ? [] : [event.contentBlockDelta.delta.text],
    );
    expect(deltas).toEqual(['One', ' two', ' three.']);
  });

  it('answers InvokeModel with an Anthropic Messages body, and Bedrock’s token headers', async () => {
    const bedrock = await standIn();
    const answer = await client(bedrock.url).send(
      new InvokeModelCommand({
        modelId: CLAUDE,
        contentType: 'application/json',
        body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'The answer?' }] }),
      }),
    );
    expect(answer.contentType).toBe('application/json');
    expect(JSON.parse(new TextDecoder().decode(answer.body))).toMatchObject({
      id: 'msg_bdrk_019V7ABaw8ZZZYuRDSTWK7VE',
      type: 'message',
      content: [{ type: 'text', text: '42' }],
      stop_reason: 'end_turn',
    });
    expect(bedrock.requests[0]!.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/invoke');
  });

  it('answers InvokeModel with a Nova body in Nova’s shape', async () => {
    const bedrock = await standIn({ answer: ({ prompt }) => ({ kind: 'text', text: `Nova heard: ${prompt}` }) });
    const answer = await client(bedrock.url).send(
      new InvokeModelCommand({ modelId: NOVA, body: JSON.stringify({ messages: ask('hello'), inferenceConfig: { maxTokens: 32 } }) }),
    );
    expect(JSON.parse(new TextDecoder().decode(answer.body))).toEqual({
      output: { message: { role: 'assistant', content: [{ text: 'Nova heard: hello' }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 9, outputTokens: 15, totalTokens: 24 },
    });
  });

  it('streams InvokeModelWithResponseStream as chunks of base64 Anthropic events', async () => {
    const bedrock = await standIn();
    const answer = await client(bedrock.url).send(
      new InvokeModelWithResponseStreamCommand({
        modelId: CLAUDE,
        body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }),
      }),
    );
    const events: ResponseStream[] = await collect(answer.body);
    const decoded = events.map((event) => JSON.parse(new TextDecoder().decode(event.chunk!.bytes)) as { type: string; delta?: { text?: string } });
    expect(decoded.map((event) => event.type)).toEqual([
      'message_start',
      'content_block_start',
      ...Array<string>(5).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(decoded.map((event) => event.delta?.text ?? '').join('')).toBe('Hi! 👋 How are you doing today?');
    expect(decoded.at(-1)).toMatchObject({ 'amazon-bedrock-invocationMetrics': { inputTokenCount: 10, outputTokenCount: 15 } });
    expect(bedrock.requests[0]!.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/invoke-with-response-stream');
  });

  it('dispatches a model ARN, which the SDK sends encoded as one path segment', async () => {
    const bedrock = await standIn();
    const arn = `arn:aws:bedrock:us-east-1::foundation-model/${CLAUDE}`;
    await client(bedrock.url).send(new ConverseCommand({ modelId: arn, messages: ask('hi') }));
    expect(bedrock.requests[0]).toMatchObject({ modelId: arn, path: `/model/${encodeURIComponent(arn)}/converse` });
  });

  it('refuses a wrong secret with InvalidSignatureException and AWS’s canonical request', async () => {
    const bedrock = await standIn();
    const sdk = client(bedrock.url, { accessKeyId: ACCESS_KEY_ID, secretAccessKey: 'fake-secret-wrong' });
    const failure = await sdk.send(new ConverseCommand({ modelId: CLAUDE, messages: ask('hi') })).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'InvalidSignatureException', $metadata: { httpStatusCode: 403 } });
    const message = (failure as Error).message;
    expect(message).toMatch(/^The request signature we calculated does not match the signature you provided\./);
    expect(message).toContain('/model/anthropic.claude-3-5-sonnet-20240620-v1%253A0/converse\n');
    expect(message).toContain(`host:${bedrock.host}\n`);
    expect(bedrock.requests[0]!.rejectedWith).toBe('InvalidSignatureException');
  });

  it('refuses an unknown access key with UnrecognizedClientException', async () => {
    const bedrock = await standIn();
    const sdk = client(bedrock.url, { accessKeyId: ['AKIA', 'FAKE'.repeat(3), 'OTHR'].join(''), secretAccessKey: SECRET });
    const failure = await sdk.send(new ConverseCommand({ modelId: CLAUDE, messages: ask('hi') })).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' });
  });

  it('checks the session token when it expects one', async () => {
    const bedrock = await standIn({ sessionToken: 'fake-session-token' });
    const good = client(bedrock.url, { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, sessionToken: 'fake-session-token' });
    await expect(good.send(new ConverseCommand({ modelId: CLAUDE, messages: ask('hi') }))).resolves.toMatchObject({ stopReason: 'end_turn' });
    expect(bedrock.requests[0]!.headers['x-amz-security-token']).toBe('fake-session-token');
    const missing = client(bedrock.url);
    await expect(missing.send(new ConverseCommand({ modelId: CLAUDE, messages: ask('hi') }))).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
  });

  it('refuses a request signed for another host, even with the right keys', async () => {
    const bedrock = await standIn();
    // Signed for the real endpoint, sent to the stand-in as a proxy that forgot to re-sign would.
    const path = `/model/${encodeURIComponent(CLAUDE)}/converse`;
    const body = JSON.stringify({ messages: ask('hi') });
    const signer = new SignatureV4({
      service: 'bedrock',
      region: 'us-east-1',
      credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET },
      sha256: NodeSha256,
    });
    const signed = await signer.sign(
      new HttpRequest({
        method: 'POST',
        protocol: 'https:',
        hostname: 'bedrock-runtime.us-east-1.amazonaws.com',
        path,
        headers: { host: 'bedrock-runtime.us-east-1.amazonaws.com', 'content-type': 'application/json' },
        body,
      }),
    );
    for (const host of ['bedrock-runtime.us-east-1.amazonaws.com', bedrock.host]) {
      const answer = await post(bedrock.url, path, { ...(signed.headers as Record<string, string>), host }, body);
      expect(answer.status).toBe(403);
      expect(answer.headers['x-amzn-errortype']).toBe('InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/');
      expect(JSON.parse(answer.body).message).toMatch(/^The request signature we calculated does not match/);
    }
    expect(bedrock.requests.map((request) => request.rejectedWith)).toEqual(['InvalidSignatureException', 'InvalidSignatureException']);
  });

  it('refuses a body changed after signing', async () => {
    const bedrock = await standIn();
    const sdk = client(bedrock.url);
    sdk.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as HttpRequest;
        const sent = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body as Uint8Array);
        expect(sent).toContain('"hi"');
        request.body = sent.replace('"hi"', '"ho"');
        return next(args);
      },
      // The deserialize step wraps the sending handler: it runs after signing.
      { step: 'deserialize', name: 'tamperAfterSigning' },
    );
    await expect(sdk.send(new ConverseCommand({ modelId: CLAUDE, messages: ask('hi') }))).rejects.toMatchObject({ name: 'InvalidSignatureException' });
  });

  it('refuses a signature older than five minutes', async () => {
    const bedrock = await standIn({ now: () => new Date(Date.now() + 10 * 60_000) });
    const failure = await client(bedrock.url)
      .send(new ConverseCommand({ modelId: CLAUDE, messages: ask('hi') }))
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'InvalidSignatureException' });
    expect((failure as Error).message).toMatch(/^Signature expired: \d{8}T\d{6}Z is now earlier than \d{8}T\d{6}Z \(\d{8}T\d{6}Z - 5 min\.\)$/);
  });

  it('throttles as ThrottlingException, a 429 with Bedrock’s error type', async () => {
    const bedrock = await standIn();
    const failure = await client(bedrock.url)
      .send(new ConverseCommand({ modelId: CLAUDE, messages: ask('Busy day?') }))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ThrottlingException);
    expect(failure).toMatchObject({ message: 'Too many requests, please wait before trying again.', $metadata: { httpStatusCode: 429 } });
    expect(bedrock.requests[0]!.rejectedWith).toBe('ThrottlingException');
  });

  it('refuses as ValidationException, a 400', async () => {
    const bedrock = await standIn();
    const failure = await client(bedrock.url)
      .send(new InvokeModelCommand({ modelId: NOVA, body: JSON.stringify({ messages: ask('Invalid please') }) }))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ValidationException);
    expect(failure).toMatchObject({ $metadata: { httpStatusCode: 400 } });
  });

  it('ends a stream with a modelStreamErrorException frame the SDK raises as ModelStreamErrorException', async () => {
    const bedrock = await standIn();
    for (const send of [
      async () => (await client(bedrock.url).send(new ConverseStreamCommand({ modelId: CLAUDE, messages: ask('Break it') }))).stream,
      async () =>
        (
          await client(bedrock.url).send(
            new InvokeModelWithResponseStreamCommand({
              modelId: CLAUDE,
              body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 8, messages: [{ role: 'user', content: 'Break it' }] }),
            }),
          )
        ).body,
    ]) {
      const seen: unknown[] = [];
      const failure = await (async () => {
        for await (const event of (await send()) ?? []) seen.push(event);
      })().catch((error: unknown) => error);
      expect(seen).toHaveLength(3);
      expect(failure).toBeInstanceOf(ModelStreamErrorException);
      expect(failure).toMatchObject({ message: 'Model Stream Error', originalStatusCode: 500, originalMessage: 'The model stream failed.' });
    }
  });
});

function post(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(new URL(path, base), { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
