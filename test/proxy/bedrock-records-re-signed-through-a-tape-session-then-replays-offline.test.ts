import { existsSync, readFileSync } from 'node:fs';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  ModelStreamErrorException,
  ThrottlingException,
} from '@aws-sdk/client-bedrock-runtime';
import { loadTape } from 'modeltape/recordings';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { openTape, type TapeSession } from 'modeltape/replay';
import { closeAfterEach } from '../support/close-after-each.js';
import { startBedrockUpstream } from '../support/bedrock-upstream.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// The real BedrockRuntimeClient, pointed at a tape session: it signs for the proxy's host with
// whatever credentials it has (here the placeholder a replay gives it); the proxy signs each
// request it forwards again, with the AWS credentials of its own environment, for the stand-in,
// which checks that signature as AWS does.

const dir = tempDir();
const started = closeAfterEach();
// Built at runtime so no file holds an access-key-shaped literal.
const ACCESS_KEY_ID = ['AKIA', 'FAKE'.repeat(4)].join('');
const SECRET = `fake-secret-${'S'.repeat(28)}`;
const SESSION_TOKEN = `fake-session-token-${'T'.repeat(40)}`;
const PLACEHOLDER = { accessKeyId: 'modeltape-replay-placeholder', secretAccessKey: 'modeltape-replay-placeholder' };
const CLAUDE = 'anthropic.claude-3-5-haiku-20241022-v1:0';

beforeAll(() => {
  // The proxy's environment: the credentials the standard chain finds first.
  vi.stubEnv('AWS_ACCESS_KEY_ID', ACCESS_KEY_ID);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', SECRET);
  vi.stubEnv('AWS_SESSION_TOKEN', SESSION_TOKEN);
  vi.stubEnv('AWS_PROFILE', undefined);
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
});
afterAll(() => vi.unstubAllEnvs());

function client(endpoint: string): BedrockRuntimeClient {
  // The SDK's own handler: HTTP/2 with prior knowledge to the proxy's http:// endpoint.
  const sdk = new BedrockRuntimeClient({ endpoint, region: 'us-east-1', credentials: PLACEHOLDER, maxAttempts: 1 });
  started({ close: async () => sdk.destroy() });
  return sdk;
}

const converse = (text: string) =>
  new ConverseCommand({ modelId: CLAUDE, messages: [{ role: 'user', content: [{ text }] }], inferenceConfig: { maxTokens: 64 } });

test('Converse records through the proxy, re-signed with the real chain for the upstream, and replays with no credentials and no upstream', async () => {
  const standIn = started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, sessionToken: SESSION_TOKEN }));
  const tape = `${dir}/bedrock-converse.jsonl`;
  let session: TapeSession = started(
    await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { bedrock: standIn.url }, env: {} }),
  );
  expect(session.baseUrls.bedrock).toBe(`${session.proxy.url}/bedrock`);
  const live = await client(session.baseUrls.bedrock).send(converse('Say hello'));
  expect(live.output?.message?.content?.[0]?.text).toBeTruthy();
  expect((await session.close()).recorded).toBe(1);

  // The stand-in saw the real key's signature, for its own host, and none of the client's.
  expect(standIn.requests).toHaveLength(1);
  const received = standIn.requests[0]!;
  expect(received.rejectedWith).toBeUndefined();
  expect(received.path).toBe('/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse');
  expect(received.headers.authorization).toContain(`Credential=${ACCESS_KEY_ID}/`);
  expect(received.headers.host).toBe(standIn.host);
  expect(received.headers['x-amz-security-token']).toBe(SESSION_TOKEN);
  await standIn.close();

  // No credential, signature, date or host reaches the tape.
  const text = readFileSync(tape, 'utf8');
  for (const secret of [
    ACCESS_KEY_ID,
    SECRET,
    SESSION_TOKEN,
    'Signature=',
    'AWS4-HMAC-SHA256',
    'x-amz-date',
    'amz-sdk-invocation-id',
    standIn.host,
    PLACEHOLDER.accessKeyId,
  ])
    expect(text).not.toContain(secret);
  expect(text).toContain('"path":"/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse"');

  // Replay: the stand-in is gone; the client signs with the placeholder.
  session = started(await openTape(tape, { mode: 'replay', config: false, env: {} }));
  const replayed = await client(session.baseUrls.bedrock).send(converse('Say hello'));
  expect(replayed.output).toEqual(live.output);
  expect(replayed.usage).toEqual(live.usage);
  expect(replayed.stopReason).toBe(live.stopReason);

  // A changed prompt is a miss in Bedrock's error shape, naming the difference.
  const miss = await client(session.baseUrls.bedrock)
    .send(converse('Say goodbye'))
    .then(
      () => undefined,
      (error: Error & { $metadata?: { httpStatusCode?: number } }) => error,
    );
  expect(miss?.name).toBe('modeltape_replay_miss');
  expect(miss?.$metadata?.httpStatusCode).toBe(400);
  expect(miss?.message).toContain('Failed to replay POST /bedrock/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse');
  expect(miss?.message).toContain('recorded "Say hello" sent "Say goodbye"');
  const summary = await session.close();
  expect(summary).toMatchObject({ hits: 1, misses: 1, upstreamConnections: 0 });
});

test('a throttled answer is recorded and replays as the ThrottlingException the SDK raises', async () => {
  const standIn = started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, sessionToken: SESSION_TOKEN }));
  const tape = `${dir}/bedrock-throttled.jsonl`;
  let session: TapeSession = started(
    await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { bedrock: standIn.url }, env: {} }),
  );
  const live = await client(session.baseUrls.bedrock)
    .send(converse('Busy, please'))
    .catch((error: Error) => error);
  expect(live).toBeInstanceOf(ThrottlingException);
  await session.close();
  session = started(await openTape(tape, { mode: 'replay', config: false, env: {} }));
  const replayed = await client(session.baseUrls.bedrock)
    .send(converse('Busy, please'))
    .catch((error: Error) => error);
  expect(replayed).toBeInstanceOf(ThrottlingException);
  expect((replayed as Error).message).toBe((live as Error).message);
});

test('with no AWS credentials in its environment, a recording proxy says what to set and sends nothing', async () => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', undefined);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', undefined);
  vi.stubEnv('AWS_SESSION_TOKEN', undefined);
  vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', `${dir}/no-such-credentials`);
  vi.stubEnv('AWS_CONFIG_FILE', `${dir}/no-such-config`);
  try {
    const standIn = started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET }));
    const session = started(
      await openTape(`${dir}/bedrock-no-credentials.jsonl`, {
        mode: 'record',
        allowRecordInCi: true,
        config: false,
        upstreams: { bedrock: standIn.url },
        env: {},
      }),
    );
    const error = await client(session.baseUrls.bedrock)
      .send(converse('Say hello'))
      .catch((failure: Error) => failure);
    expect((error as Error).message).toContain('Recording Bedrock needs AWS credentials in the environment modeltape runs in');
    expect(standIn.requests).toHaveLength(0);
  } finally {
    vi.stubEnv('AWS_ACCESS_KEY_ID', ACCESS_KEY_ID);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', SECRET);
    vi.stubEnv('AWS_SESSION_TOKEN', SESSION_TOKEN);
  }
});

test('a Bedrock API key (a bearer token) is forwarded as it came, with nothing signed and no AWS credentials needed, and never written', async () => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', undefined);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', undefined);
  vi.stubEnv('AWS_SESSION_TOKEN', undefined);
  vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', `${dir}/no-such-credentials`);
  vi.stubEnv('AWS_CONFIG_FILE', `${dir}/no-such-config`);
  const apiKey = `ABSK${'FAKEfakeFAKEfake'.repeat(4)}`;
  try {
    const standIn = started(
      await startStandInUpstream(() => ({
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          output: { message: { role: 'assistant', content: [{ text: 'Hi' }] } },
          stopReason: 'end_turn',
          usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        }),
      })),
    );
    const tape = `${dir}/bedrock-api-key.jsonl`;
    const session = started(await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { bedrock: standIn.url }, env: {} }));
    const answer = await fetch(`${session.baseUrls.bedrock}/model/${encodeURIComponent(CLAUDE)}/converse`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Say hello' }] }] }),
    });
    expect(answer.status).toBe(200);
    expect((await session.close()).recorded).toBe(1);
    expect(standIn.received.map((request) => request.headers.authorization)).toEqual([`Bearer ${apiKey}`]);
    expect(readFileSync(tape, 'utf8')).not.toContain(apiKey.slice(4, 20));
  } finally {
    vi.stubEnv('AWS_ACCESS_KEY_ID', ACCESS_KEY_ID);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', SECRET);
    vi.stubEnv('AWS_SESSION_TOKEN', SESSION_TOKEN);
  }
});

// Every operation, streamed and not, with Claude's and Nova's bodies: what the client reads.
async function everyOperation(sdk: BedrockRuntimeClient) {
  const out: Record<string, unknown> = {};
  out.converse = (await sdk.send(converse('Say hello'))).output;
  const stream = await sdk.send(new ConverseStreamCommand({ modelId: CLAUDE, messages: [{ role: 'user', content: [{ text: 'Count to three' }] }] }));
  out.converseStream = [];
  for await (const event of stream.stream ?? []) (out.converseStream as unknown[]).push(event);
  const claudeBody = { anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] };
  const claude = await sdk.send(new InvokeModelCommand({ modelId: CLAUDE, contentType: 'application/json', body: JSON.stringify(claudeBody) }));
  out.invokeClaude = JSON.parse(new TextDecoder().decode(claude.body));
  const novaBody = { messages: [{ role: 'user', content: [{ text: 'Say hello' }] }], inferenceConfig: { maxTokens: 64 } };
  const nova = await sdk.send(new InvokeModelCommand({ modelId: 'amazon.nova-lite-v1:0', contentType: 'application/json', body: JSON.stringify(novaBody) }));
  out.invokeNova = JSON.parse(new TextDecoder().decode(nova.body));
  const invokeStream = await sdk.send(
    new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, contentType: 'application/json', body: JSON.stringify(claudeBody) }),
  );
  out.invokeStream = [];
  for await (const event of invokeStream.body ?? []) (out.invokeStream as unknown[]).push(JSON.parse(new TextDecoder().decode(event.chunk?.bytes)));
  const broken = await sdk.send(new ConverseStreamCommand({ modelId: CLAUDE, messages: [{ role: 'user', content: [{ text: 'Break, please' }] }] }));
  const before: unknown[] = [];
  try {
    for await (const event of broken.stream ?? []) before.push(event);
    out.broken = 'ended';
  } catch (error) {
    out.broken = { name: (error as Error).name, isModelStreamError: error instanceof ModelStreamErrorException, message: (error as Error).message, before };
  }
  return out;
}

test('ConverseStream, InvokeModel (Claude, Nova) and InvokeModelWithResponseStream record their event streams readable and replay them as the SDK read them live, a stream error too', async () => {
  const standIn = started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, sessionToken: SESSION_TOKEN }));
  const tape = `${dir}/bedrock-every-operation.jsonl`;
  let session: TapeSession = started(
    await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { bedrock: standIn.url }, env: {} }),
  );
  const live = await everyOperation(client(session.baseUrls.bedrock));
  expect((await session.close()).recorded).toBe(6);
  expect(standIn.requests.filter((request) => request.rejectedWith !== undefined)).toEqual([]);
  await standIn.close();
  expect((live.converseStream as unknown[]).length).toBeGreaterThan(3);
  expect((live.invokeStream as Array<{ type: string }>).at(-1)?.type).toBe('message_stop');
  expect(live.broken).toMatchObject({ name: 'ModelStreamErrorException', isModelStreamError: true });

  // The streams are on the tape as events a person reads: the event types and their JSON.
  const streams = loadTape(tape).exchanges.flatMap(({ exchange }) => (exchange.response.stream === undefined ? [] : [exchange.response.stream]));
  expect(streams.map((stream) => stream.format)).toEqual(['eventstream', 'eventstream', 'eventstream']);
  const frames = streams.flatMap((stream) => stream.frames);
  expect(frames.every((frame) => 'event' in frame)).toBe(true);
  expect(JSON.stringify(frames)).toContain('"headers":{":event-type":"messageStart"');
  expect(JSON.stringify(frames)).toContain('"bytes":{"json":{"type":"message_stop"');

  session = started(await openTape(tape, { mode: 'replay', config: false, env: {} }));
  expect(await everyOperation(client(session.baseUrls.bedrock))).toEqual(live);
  expect(await session.close()).toMatchObject({ hits: 6, misses: 0, upstreamConnections: 0 });
});

test('an upstream that refuses the signature and quotes the canonical request (session token included) is not recorded, and nothing of the credential reaches the tape', async () => {
  // The stand-in expects another secret: AWS's InvalidSignatureException quotes what was signed.
  const standIn = started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: `${SECRET}-other`, sessionToken: SESSION_TOKEN }));
  const tape = `${dir}/bedrock-refused-signature.jsonl`;
  const logged: string[] = [];
  const session = started(
    await openTape(tape, {
      mode: 'record',
      allowRecordInCi: true,
      config: false,
      upstreams: { bedrock: standIn.url },
      env: {},
      log: (line) => logged.push(line),
    }),
  );
  const error = await client(session.baseUrls.bedrock)
    .send(converse('Say hello'))
    .catch((failure: Error) => failure);
  expect((error as Error).name).toBe('InvalidSignatureException');
  expect(standIn.requests[0]?.rejectedWith).toBe('InvalidSignatureException');
  const summary = await session.close();
  expect(summary.recorded).toBe(0);
  expect(logged.join('\n')).toContain('part of the x-amz-security-token header the request carried');
  const text = existsSync(tape) ? readFileSync(tape, 'utf8') : '';
  for (const secret of [ACCESS_KEY_ID, SESSION_TOKEN]) {
    expect(text).not.toContain(secret);
    expect(logged.join('\n')).not.toContain(secret);
  }
});
