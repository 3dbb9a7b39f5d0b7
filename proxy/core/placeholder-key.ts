import type { IncomingHttpHeaders } from 'node:http';
import type { Provider } from './upstream-table.js';

/**
 * The key `modeltape run` gives a replay (and auto) command when none is set: the SDKs refuse
 * to build a client without one, and replay never sends it anywhere. Not shaped like a real
 * key. A test that builds its own client without a key can use it too:
 * `new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? REPLAY_PLACEHOLDER_KEY, fetch: session.fetch })`.
 */
export const REPLAY_PLACEHOLDER_KEY = 'modeltape-replay-placeholder';

const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key'] as const;

/**
 * True when the request's credential is the placeholder: it cannot be recorded from a real
 * provider. Never for Bedrock: the proxy signs each request it forwards there again with the AWS
 * credentials of its own environment, whatever the client signed with.
 */
export function carriesPlaceholderKey(headers: IncomingHttpHeaders, provider?: Provider): boolean {
  if (provider === 'bedrock') return false;
  return CREDENTIAL_HEADERS.some((name) => {
    const value = headers[name];
    return typeof value === 'string' && value.includes(REPLAY_PLACEHOLDER_KEY);
  });
}

// The key variables of the OpenAI-compatible presets, by upstream name.
const PRESET_KEY_VARIABLES: Readonly<Record<string, string>> = {
  openrouter: 'OPENROUTER_API_KEY',
  groq: 'GROQ_API_KEY',
  together: 'TOGETHER_API_KEY',
  fireworks: 'FIREWORKS_API_KEY',
  deepseek: 'DEEPSEEK_API_KEY',
  mistral: 'MISTRAL_API_KEY',
  xai: 'XAI_API_KEY',
};

/** The variable a user sets for this provider's key (for a preset upstream, its own: `GROQ_API_KEY`). */
export function keyVariableOf(provider: Provider, upstream?: string): string {
  const preset = upstream === undefined ? undefined : PRESET_KEY_VARIABLES[upstream];
  if (preset !== undefined) return preset;
  switch (provider) {
    case 'anthropic':
      return 'ANTHROPIC_API_KEY';
    case 'gemini':
      return 'GEMINI_API_KEY';
    case 'openai':
      return 'OPENAI_API_KEY';
    case 'azure':
      return 'AZURE_OPENAI_API_KEY';
    case 'mcp':
      return "the MCP server's credential";
    case 'vertex':
      return 'Google credentials (run gcloud auth application-default login, or point GOOGLE_APPLICATION_CREDENTIALS at a credentials file)';
    case 'bedrock':
      return 'AWS credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE) in the environment modeltape runs in';
    default:
      return "the provider's API key";
  }
}
