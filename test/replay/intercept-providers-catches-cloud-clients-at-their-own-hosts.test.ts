import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { GoogleGenAI } from '@google/genai';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { interceptProviders, openTape, placeholderGoogleCredentials } from 'modeltape/replay';
import { startAzureStandIn } from '../support/azure-upstream.js';
import { startBedrockUpstream } from '../support/bedrock-upstream.js';
import { closeAfterEach } from '../support/close-after-each.js';
import { offMachineStandIn } from '../support/off-machine-stand-in.js';
import { tempDir } from '../support/temp-dir.js';
import { startVertexStandIn, userGoogleCredentials } from '../support/vertex-upstream.js';

// Code that builds its own cloud clients at their own hosts (an Azure resource, a Bedrock region,
// a Vertex location), handing them no fetch and no endpoint: interceptProviders answers each from
// the session. Anything the interception missed would reach the loopback stand-in below, never a
// provider, and the session's guard would fail its close().

const dir = tempDir();
const started = closeAfterEach();
// Built at runtime so no file holds an access-key-shaped literal.
const ACCESS_KEY_ID = ['AKIA', 'FAKE'.repeat(4)].join('');
const SECRET = `fake-secret-${'S'.repeat(28)}`;
const PLACEHOLDER = { accessKeyId: 'modeltape-replay-placeholder', secretAccessKey: 'modeltape-replay-placeholder' };
const ACCESS_TOKEN = ['ya29', `a0FAKE${'FAKE'.repeat(10)}_fake-0004`].join('.');
const CLAUDE = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const AZURE = { apiKey: 'fake-azure-key', apiVersion: '2024-10-21', deployment: 'gpt-4o-dev', maxRetries: 0 };
const VERTEX = { vertexai: true, project: 'fake-project', location: 'europe-west4' } as const;

describe('interceptProviders and the cloud providers', () => {
  const offMachine = offMachineStandIn();
  beforeAll(() => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', ACCESS_KEY_ID);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', SECRET);
    vi.stubEnv('AWS_SESSION_TOKEN', undefined);
    vi.stubEnv('AWS_PROFILE', undefined);
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
  });
  afterAll(() => vi.unstubAllEnvs());

  const converse = new ConverseCommand({ modelId: CLAUDE, messages: [{ role: 'user', content: [{ text: 'Say hello' }] }], inferenceConfig: { maxTokens: 64 } });

  test('AzureOpenAI at its resource, Bedrock in another region and @google/genai in a Vertex location are answered from the tape with nothing sent', async () => {
    // Recorded through the session's base URLs, from stand-ins that check each credential.
    const azure = started(await startAzureStandIn());
    const bedrock = started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, region: 'eu-west-1' }));
    const vertex = started(await startVertexStandIn(ACCESS_TOKEN));
    const tape = `${dir}/cloud.jsonl`;
    const recording = await openTape(tape, {
      mode: 'record',
      allowRecordInCi: true,
      config: false,
      env: {},
      upstreams: { azure: azure.url, bedrock: bedrock.url, vertex: vertex.url },
    });
    const azureAnswer = await new AzureOpenAI({ ...AZURE, endpoint: recording.baseUrls.azure }).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    const recordingBedrock = new BedrockRuntimeClient({ endpoint: recording.baseUrls.bedrock, region: 'eu-west-1', credentials: PLACEHOLDER, maxAttempts: 1 });
    const bedrockAnswer = await recordingBedrock.send(converse);
    recordingBedrock.destroy();
    const vertexAnswer = await new GoogleGenAI({
      ...VERTEX,
      httpOptions: { baseUrl: recording.baseUrls.vertex },
      googleAuthOptions: { credentials: userGoogleCredentials(vertex.url) },
    }).models.generateContent({ model: 'gemini-2.5-flash', contents: 'Say hello' });
    expect((await recording.close()).recorded).toBe(3);

    const session = await openTape(tape, { mode: 'replay', config: false, env: {} });
    const interception = await interceptProviders(session);
    try {
      // Each client at its provider's own host: a resource never looked up, a region the tape was
      // not recorded in the name of, a location's host.
      const replayedAzure = await new AzureOpenAI({ ...AZURE, endpoint: 'https://modeltape-fake-resource.openai.azure.com' }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'Say hello' }],
      });
      expect(replayedAzure.choices[0]!.message.content).toBe(azureAnswer.choices[0]!.message.content);

      // node:https, which msw patches (the SDK's default handler speaks HTTP/2, which it cannot).
      const bedrockClient = new BedrockRuntimeClient({ region: 'eu-west-1', credentials: PLACEHOLDER, maxAttempts: 1, requestHandler: new NodeHttpHandler() });
      const replayedBedrock = await bedrockClient.send(converse);
      bedrockClient.destroy();
      expect(replayedBedrock.output).toEqual(bedrockAnswer.output);

      const replayedVertex = await new GoogleGenAI({
        ...VERTEX,
        googleAuthOptions: { credentials: placeholderGoogleCredentials(session.baseUrls.url) },
      }).models.generateContent({ model: 'gemini-2.5-flash', contents: 'Say hello' });
      expect(replayedVertex.text).toBe(vertexAnswer.text);

      expect(interception.intercepted.map(({ method, url }) => `${method} ${new URL(url).host}`)).toEqual([
        'POST modeltape-fake-resource.openai.azure.com',
        'POST bedrock-runtime.eu-west-1.amazonaws.com',
        'POST europe-west4-aiplatform.googleapis.com',
      ]);
    } finally {
      await interception.close();
    }
    expect(await session.close()).toMatchObject({ hits: 3, misses: 0, upstreamConnections: 0, escapes: [] });
    expect(await offMachine.heard()).toEqual([]);
  });
});
