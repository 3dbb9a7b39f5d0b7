// Vertex AI's routes in the battery: Gemini's generateContent (and `:streamGenerateContent?alt=sse`)
// and countTokens at `/v1beta1/projects/{p}/locations/{l}/publishers/google/models/{model}:…`, and
// Anthropic's Messages through `:rawPredict` and `:streamRawPredict` (the model in the path, the
// API version in the body) and its token count at `…/models/count-tokens:rawPredict`. Each takes
// the checks of the API it serves: the Gemini entries the stream grammar, Google's RPC error shape
// and the clients (Google publishes no OpenAPI document), the Claude entries Anthropic's published
// spec as well. The clients are Vertex AI's own: @google/genai with `vertexai: true`,
// AnthropicVertex (each must send exactly the route the surface was asked) and `ai` with
// @ai-sdk/google-vertex, authenticated offline by an access token that never expires.
import AnthropicVertex from '@anthropic-ai/vertex-sdk';
import { createVertex } from '@ai-sdk/google-vertex';
import { createVertexAnthropic } from '@ai-sdk/google-vertex/anthropic';
import { GoogleGenAI } from '@google/genai';
import { OAuth2Client } from 'google-auth-library';
import { expect } from 'vitest';
import {
  expectClientReading,
  replaying,
  routeText,
  settle,
  vercelReading,
  vercelReads,
  type WireAnswer,
  type WireApiUnderTest,
  type WireCase,
  type WireRequest,
} from '../wire-conformance.js';
import { ANTHROPIC_ERRORS, countTokens, messages } from './anthropic.js';
import { countTokensEntry, generateEntry, type GeminiPlace } from './gemini.js';

const PROJECT = 'fake-project';
const GEMINI_LOCATION = 'us-central1';
const CLAUDE_LOCATION = 'us-east5';
const CLAUDE = 'claude-sonnet-4-5@20250929';
const ACCESS_TOKEN = 'fake-access-token';

/** Google auth that asks nothing of the network: a client holding an access token good for a day. */
function offlineGoogleAuth() {
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: ACCESS_TOKEN, expiry_date: Date.now() + 86_400_000 });
  return { authClient };
}

const VERTEX_GEMINI: GeminiPlace = {
  upstream: 'vertex',
  // The path @google/genai builds on Vertex AI (v1beta1).
  path: (model, method) => `/v1beta1/projects/${PROJECT}/locations/${GEMINI_LOCATION}/publishers/google/models/${model}:${method}`,
  genai: (fetch) =>
    new GoogleGenAI({ vertexai: true, project: PROJECT, location: GEMINI_LOCATION, googleAuthOptions: offlineGoogleAuth(), httpOptions: { fetch } }),
  vercel: (fetch, model) => createVertex({ project: PROJECT, location: GEMINI_LOCATION, googleAuthOptions: offlineGoogleAuth(), fetch })(model),
  name: '@google/genai on Vertex AI',
};

export const vertexGenerate = generateEntry(VERTEX_GEMINI);
export const vertexCountTokens = countTokensEntry(VERTEX_GEMINI);

const claudePath = (model: string, method: string) => `/v1/projects/${PROJECT}/locations/${CLAUDE_LOCATION}/publishers/anthropic/models/${model}:${method}`;

function anthropicVertex(fetch: typeof globalThis.fetch): AnthropicVertex {
  return new AnthropicVertex({ projectId: PROJECT, region: CLAUDE_LOCATION, authClient: offlineGoogleAuth().authClient, fetch, maxRetries: 0 });
}

/** AnthropicVertex reads the answer as `call` asks it; it must have sent exactly the route the surface was asked. */
async function anthropicVertexReading(answer: WireAnswer, request: WireRequest, testCase: WireCase, call: (client: AnthropicVertex) => Promise<unknown>) {
  const sent: string[] = [];
  const reading = await settle(() => call(anthropicVertex(replaying(answer, sent))));
  expect(sent, `@anthropic-ai/vertex-sdk "${testCase.name}": the client's request`).toEqual([routeText(request.method, request.path, new URLSearchParams())]);
  expectClientReading('@anthropic-ai/vertex-sdk', reading, testCase, ANTHROPIC_ERRORS);
}

/** Anthropic's Messages at `:rawPredict` and `:streamRawPredict`: Anthropic's body, its model in the path and `anthropic_version` in the body. */
export const vertexMessages: WireApiUnderTest = {
  ...messages,
  upstream: 'vertex',
  request(shape, earlier) {
    const { model: _model, ...body } = messages.request(shape, earlier).body!;
    return {
      method: 'POST',
      path: claudePath(CLAUDE, shape.stream ? 'streamRawPredict' : 'rawPredict'),
      body: { anthropic_version: 'vertex-2023-10-16', ...body },
    };
  },
  async clients(answer, request, testCase) {
    // AnthropicVertex takes Anthropic's parameters: it moves the model into the path and adds the version.
    const { anthropic_version: _version, ...params } = request.body!;
    const create = (client: AnthropicVertex) =>
      (client.messages.create as unknown as (body: Record<string, unknown>) => Promise<unknown>).call(client.messages, { ...params, model: CLAUDE });
    await anthropicVertexReading(answer, request, testCase, create);
    if (!vercelReads(testCase)) return 1;
    const vercel = createVertexAnthropic({ project: PROJECT, location: CLAUDE_LOCATION, googleAuthOptions: offlineGoogleAuth(), fetch: replaying(answer) });
    return 1 + (await vercelReading(vercel(CLAUDE), testCase));
  },
};

/** Anthropic's token count at `…/models/count-tokens:rawPredict`: the model in the body. */
export const vertexAnthropicCountTokens: WireApiUnderTest = {
  ...countTokens,
  upstream: 'vertex',
  request(shape, earlier) {
    const body = countTokens.request(shape, earlier).body!;
    return { method: 'POST', path: claudePath('count-tokens', 'rawPredict'), body: { anthropic_version: 'vertex-2023-10-16', ...body, model: CLAUDE } };
  },
  async clients(answer, request, testCase) {
    const { anthropic_version: _version, ...params } = request.body!;
    await anthropicVertexReading(answer, request, testCase, async (client) => {
      const counted = await client.messages.countTokens(params as never);
      expect((counted as { input_tokens: number }).input_tokens, 'input_tokens').toBeGreaterThan(0);
      return counted;
    });
    return 1;
  },
};
