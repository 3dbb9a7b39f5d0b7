import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPLAY_PLACEHOLDER_KEY } from '../core/placeholder-key.js';
import { childEnvironment } from './child-environment.js';

const run = { url: 'http://127.0.0.1:4100', mode: 'replay' as const, reportFile: '/tmp/modeltape-report.json', guardHosts: [] };

describe('childEnvironment for Gemini clients', () => {
  test('points GOOGLE_GEMINI_BASE_URL (what @google/genai reads) at the proxy’s /gemini, and gives GEMINI_API_KEY a placeholder', () => {
    const env = childEnvironment({}, run);
    expect(env.GOOGLE_GEMINI_BASE_URL).toBe('http://127.0.0.1:4100/gemini');
    expect(env.GEMINI_API_KEY).toBe(REPLAY_PLACEHOLDER_KEY);
  });

  test('leaves a key the user set alone, and sets no GEMINI_API_KEY beside a GOOGLE_API_KEY (which @google/genai prefers)', () => {
    expect(childEnvironment({ GEMINI_API_KEY: 'fake-user-key' }, run).GEMINI_API_KEY).toBe('fake-user-key');
    const env = childEnvironment({ GOOGLE_API_KEY: 'fake-user-key' }, run);
    expect(env.GEMINI_API_KEY).toBeUndefined();
    expect(env.GOOGLE_API_KEY).toBe('fake-user-key');
  });

  test('gives GOOGLE_GENERATIVE_AI_API_KEY (what @ai-sdk/google reads) a placeholder in replay and auto, and leaves the user’s alone', () => {
    expect(childEnvironment({}, run).GOOGLE_GENERATIVE_AI_API_KEY).toBe(REPLAY_PLACEHOLDER_KEY);
    expect(childEnvironment({}, { ...run, mode: 'auto' }).GOOGLE_GENERATIVE_AI_API_KEY).toBe(REPLAY_PLACEHOLDER_KEY);
    expect(childEnvironment({}, { ...run, mode: 'record' }).GOOGLE_GENERATIVE_AI_API_KEY).toBeUndefined();
    expect(childEnvironment({ GOOGLE_GENERATIVE_AI_API_KEY: 'fake-user-key' }, run).GOOGLE_GENERATIVE_AI_API_KEY).toBe('fake-user-key');
  });
});

describe('childEnvironment for Azure OpenAI clients', () => {
  test('in replay, @azure/identity finds the proxy’s managed identity stand-in, whatever the machine has', () => {
    const machine = {
      AZURE_TOKEN_CREDENTIALS: 'dev',
      IDENTITY_ENDPOINT: 'http://localhost:41741/MSI/token/',
      IDENTITY_HEADER: 'fake-real-header',
      IDENTITY_SERVER_THUMBPRINT: 'fake-thumbprint',
      MSI_ENDPOINT: 'http://169.254.169.254/metadata/identity/oauth2/token',
      MSI_SECRET: 'fake-msi-secret',
      IMDS_ENDPOINT: 'http://localhost:40342',
      AZURE_FEDERATED_TOKEN_FILE: '/var/run/secrets/azure/tokens/azure-identity-token',
      AZURE_CLIENT_ID: 'fake-client-id',
    };
    const env = childEnvironment(machine, { url: 'http://127.0.0.1:4100', mode: 'replay', reportFile: '/tmp/report.json', guardHosts: [] });
    expect(env.AZURE_TOKEN_CREDENTIALS).toBe('ManagedIdentityCredential');
    expect(env.IDENTITY_ENDPOINT).toBe('http://127.0.0.1:4100/_modeltape/azure-identity/token');
    expect(env.IDENTITY_HEADER).toBe(REPLAY_PLACEHOLDER_KEY);
    for (const name of ['IDENTITY_SERVER_THUMBPRINT', 'MSI_ENDPOINT', 'MSI_SECRET', 'IMDS_ENDPOINT', 'AZURE_FEDERATED_TOKEN_FILE'])
      expect(env[name], name).toBeUndefined();
    // A user-assigned identity's id is only asked for: the stand-in answers any.
    expect(env.AZURE_CLIENT_ID).toBe('fake-client-id');
    // Recording and auto need the machine's real identity.
    for (const mode of ['record', 'auto', 'passthrough'] as const)
      expect(childEnvironment(machine, { url: 'http://127.0.0.1:4100', mode, reportFile: '/tmp/report.json', guardHosts: [] })).toMatchObject(machine);
  });

  test('points AZURE_OPENAI_ENDPOINT at the proxy’s /azure and gives AZURE_OPENAI_API_KEY a placeholder in replay and auto', () => {
    for (const mode of ['replay', 'auto'] as const) {
      const env = childEnvironment({}, { ...run, mode });
      expect(env.AZURE_OPENAI_ENDPOINT).toBe('http://127.0.0.1:4100/azure');
      expect(env.AZURE_OPENAI_API_KEY).toBe(REPLAY_PLACEHOLDER_KEY);
    }
  });

  test('leaves the user’s key alone, and gives none in record mode, where a real one is needed', () => {
    expect(childEnvironment({ AZURE_OPENAI_API_KEY: 'fake-user-key' }, run).AZURE_OPENAI_API_KEY).toBe('fake-user-key');
    // Set empty: the code authenticates with Entra ID, and AzureOpenAI refuses a key beside a token provider.
    expect(childEnvironment({ AZURE_OPENAI_API_KEY: '' }, run).AZURE_OPENAI_API_KEY).toBe('');
    const recording = childEnvironment({ AZURE_OPENAI_ENDPOINT: 'https://fake-resource.openai.azure.com' }, { ...run, mode: 'record' });
    expect(recording.AZURE_OPENAI_API_KEY).toBeUndefined();
    // The command reaches the resource through the run: its own variable names the proxy.
    expect(recording.AZURE_OPENAI_ENDPOINT).toBe('http://127.0.0.1:4100/azure');
  });
});

describe('childEnvironment for AWS Bedrock clients', () => {
  const user = {
    AWS_ACCESS_KEY_ID: 'AKIAFAKEFAKEFAKEFAKE',
    AWS_SECRET_ACCESS_KEY: 'fake-secret-access-key',
    AWS_SESSION_TOKEN: 'fake-session-token',
    AWS_PROFILE: 'fake-profile',
    AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true',
    AWS_REGION: 'eu-west-3',
  };

  test('points AWS_ENDPOINT_URL_BEDROCK_RUNTIME and ANTHROPIC_BEDROCK_BASE_URL at the proxy’s /bedrock in every mode, and lets no setting make the SDK ignore it', () => {
    for (const mode of ['replay', 'auto', 'record', 'passthrough'] as const) {
      const env = childEnvironment(user, { ...run, mode });
      expect(env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME).toBe('http://127.0.0.1:4100/bedrock');
      // @anthropic-ai/bedrock-sdk reads its own variable, and appends /model/… to its path.
      expect(env.ANTHROPIC_BEDROCK_BASE_URL).toBe('http://127.0.0.1:4100/bedrock');
      expect(env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS).toBeUndefined();
    }
  });

  test('in replay the placeholder credentials win over the user’s, a profile, a session token and the instance role', () => {
    const env = childEnvironment(user, run);
    expect(env.AWS_ACCESS_KEY_ID).toBe(REPLAY_PLACEHOLDER_KEY);
    expect(env.AWS_SECRET_ACCESS_KEY).toBe(REPLAY_PLACEHOLDER_KEY);
    expect(env.AWS_SESSION_TOKEN).toBeUndefined();
    expect(env.AWS_PROFILE).toBeUndefined();
    expect(env.AWS_EC2_METADATA_DISABLED).toBe('true');
    // The user's region stays; with none, the SDK gets one (it refuses to build a client without).
    expect(env.AWS_REGION).toBe('eu-west-3');
    expect(childEnvironment({}, run).AWS_REGION).toBe('us-east-1');
    // LangChain's ChatBedrockConverse reads only AWS_DEFAULT_REGION: it gets the same region.
    expect(env.AWS_DEFAULT_REGION).toBe('eu-west-3');
    expect(childEnvironment({}, run).AWS_DEFAULT_REGION).toBe('us-east-1');
    expect(childEnvironment({ AWS_DEFAULT_REGION: 'ap-south-1' }, run)).toMatchObject({ AWS_REGION: 'ap-south-1', AWS_DEFAULT_REGION: 'ap-south-1' });
  });

  test('in record mode the user’s credentials stay (the proxy signs again with its own), and auto adds placeholders only where none are set', () => {
    const recording = childEnvironment(user, { ...run, mode: 'record' });
    expect(recording.AWS_ACCESS_KEY_ID).toBe(user.AWS_ACCESS_KEY_ID);
    expect(recording.AWS_PROFILE).toBe(user.AWS_PROFILE);
    expect(childEnvironment(user, { ...run, mode: 'auto' }).AWS_PROFILE).toBe(user.AWS_PROFILE);
    expect(childEnvironment({}, { ...run, mode: 'auto' }).AWS_ACCESS_KEY_ID).toBe(REPLAY_PLACEHOLDER_KEY);
    expect(childEnvironment({}, { ...run, mode: 'record' }).AWS_ACCESS_KEY_ID).toBeUndefined();
  });
});

describe('childEnvironment for the OpenAI-compatible presets’ own SDKs', () => {
  test('points GROQ_BASE_URL (groq-sdk) and TOGETHER_BASE_URL (together-ai) at their presets, with placeholder keys in replay and auto only', () => {
    const env = childEnvironment({}, run);
    expect(env.GROQ_BASE_URL).toBe('http://127.0.0.1:4100/groq');
    expect(env.TOGETHER_BASE_URL).toBe('http://127.0.0.1:4100/together/v1');
    expect([env.GROQ_API_KEY, env.TOGETHER_API_KEY]).toEqual([REPLAY_PLACEHOLDER_KEY, REPLAY_PLACEHOLDER_KEY]);
    const recording = childEnvironment({ GROQ_API_KEY: 'fake-user-key' }, { ...run, mode: 'record' });
    expect([recording.GROQ_API_KEY, recording.TOGETHER_API_KEY]).toEqual(['fake-user-key', undefined]);
  });
});

describe('childEnvironment for Google Vertex AI clients', () => {
  const file = '/tmp/modeltape-run-fake/google-credentials.json';
  const vertex = { ...run, googleCredentials: file };

  test('points GOOGLE_VERTEX_BASE_URL (@google/genai) at /vertex and ANTHROPIC_VERTEX_BASE_URL (AnthropicVertex) at /vertex/v1 in every mode', () => {
    for (const mode of ['replay', 'auto', 'record', 'passthrough'] as const) {
      const env = childEnvironment({}, { ...vertex, mode });
      expect(env.GOOGLE_VERTEX_BASE_URL).toBe('http://127.0.0.1:4100/vertex');
      expect(env.ANTHROPIC_VERTEX_BASE_URL).toBe('http://127.0.0.1:4100/vertex/v1');
    }
  });

  test('in replay the placeholder credentials win over the user’s file and the metadata server, which is turned off and pointed at the proxy', () => {
    const env = childEnvironment({ GOOGLE_APPLICATION_CREDENTIALS: '/home/fake/adc.json', GCE_METADATA_HOST: 'metadata.google.internal' }, vertex);
    expect(env.GOOGLE_APPLICATION_CREDENTIALS).toBe(file);
    expect(env.METADATA_SERVER_DETECTION).toBe('none');
    expect(env.GCE_METADATA_HOST).toBe('127.0.0.1:4100');
    expect(env.GCE_METADATA_IP).toBe('127.0.0.1:4100');
  });

  test('record mode keeps the user’s credentials; auto gives the placeholders only where the user has none', () => {
    const home = mkdtempSync(join(tmpdir(), 'modeltape-home-'));
    try {
      const recording = childEnvironment({ GOOGLE_APPLICATION_CREDENTIALS: '/home/fake/adc.json' }, { ...vertex, mode: 'record' });
      expect(recording.GOOGLE_APPLICATION_CREDENTIALS).toBe('/home/fake/adc.json');
      expect(recording.METADATA_SERVER_DETECTION).toBeUndefined();
      expect(childEnvironment({ HOME: home }, { ...vertex, mode: 'record' }).GOOGLE_APPLICATION_CREDENTIALS).toBeUndefined();
      expect(childEnvironment({ HOME: home }, { ...vertex, mode: 'auto' }).GOOGLE_APPLICATION_CREDENTIALS).toBe(file);
      expect(
        childEnvironment({ HOME: home, GOOGLE_APPLICATION_CREDENTIALS: '/home/fake/adc.json' }, { ...vertex, mode: 'auto' }).GOOGLE_APPLICATION_CREDENTIALS,
      ).toBe('/home/fake/adc.json');
      // What `gcloud auth application-default login` wrote counts as the user's own.
      mkdirSync(join(home, '.config', 'gcloud'), { recursive: true });
      writeFileSync(join(home, '.config', 'gcloud', 'application_default_credentials.json'), '{}');
      const auto = childEnvironment({ HOME: home }, { ...vertex, mode: 'auto' });
      expect(auto.GOOGLE_APPLICATION_CREDENTIALS).toBeUndefined();
      expect(auto.METADATA_SERVER_DETECTION).toBeUndefined();
      expect(
        childEnvironment({ HOME: '/nowhere', CLOUDSDK_CONFIG: join(home, '.config', 'gcloud') }, { ...vertex, mode: 'auto' }).GOOGLE_APPLICATION_CREDENTIALS,
      ).toBeUndefined();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
