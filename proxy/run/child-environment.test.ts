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
  test('points AZURE_OPENAI_ENDPOINT at the proxy’s /azure and gives AZURE_OPENAI_API_KEY a placeholder in replay and auto', () => {
    for (const mode of ['replay', 'auto'] as const) {
      const env = childEnvironment({}, { ...run, mode });
      expect(env.AZURE_OPENAI_ENDPOINT).toBe('http://127.0.0.1:4100/azure');
      expect(env.AZURE_OPENAI_API_KEY).toBe(REPLAY_PLACEHOLDER_KEY);
    }
  });

  test('leaves the user’s key alone, and gives none in record mode, where a real one is needed', () => {
    expect(childEnvironment({ AZURE_OPENAI_API_KEY: 'fake-user-key' }, run).AZURE_OPENAI_API_KEY).toBe('fake-user-key');
    const recording = childEnvironment({ AZURE_OPENAI_ENDPOINT: 'https://fake-resource.openai.azure.com' }, { ...run, mode: 'record' });
    expect(recording.AZURE_OPENAI_API_KEY).toBeUndefined();
    // The command reaches the resource through the run: its own variable names the proxy.
    expect(recording.AZURE_OPENAI_ENDPOINT).toBe('http://127.0.0.1:4100/azure');
  });
});
