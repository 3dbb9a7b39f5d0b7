import { sseFrames, startStandInUpstream, type ReceivedRequest, type StandInReply, type StandInUpstream } from './stand-in-upstream.js';

// A loopback stand-in for Google Vertex AI ({location}-aiplatform.googleapis.com), answering in
// its wire shapes, written from its REST reference (https://cloud.google.com/vertex-ai/docs/reference/rest:
// projects.locations.publishers.models generateContent, streamGenerateContent, countTokens,
// rawPredict, streamRawPredict; "Use Claude models" for the Anthropic bodies; error-code-429),
// values shortened and ids marked fake. What makes them Vertex's rather than the Gemini API's:
// the project and location in the path, OAuth bearer tokens rather than API keys, `createTime`,
// `responseId` and a `usageMetadata.trafficType` in the answer, a `totalBillableCharacters` in a
// token count, and Anthropic's models answering Anthropic Messages bodies (model in the path,
// `anthropic_version` in the body) at `:rawPredict`. A Claude stream is the captured Anthropic
// sample (test/fixtures/samples/anthropic/stream-text.sse), which Vertex relays as it is.

/** A Vertex AI method on a publisher's model: `/v1/projects/{p}/locations/{l}/publishers/{publisher}/models/{model}:{method}`. */
export const VERTEX_PATH = /^\/(v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/;

/** Google's answer to a request without a valid access token. */
export const VERTEX_UNAUTHENTICATED = {
  error: {
    code: 401,
    message:
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    status: 'UNAUTHENTICATED',
  },
};

/** Vertex AI's quota error (a 429 with Google's RPC status), the same for a Gemini and a Claude model. */
export const VERTEX_RESOURCE_EXHAUSTED = {
  error: {
    code: 429,
    message:
      'Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.',
    status: 'RESOURCE_EXHAUSTED',
  },
};

/** A request as the stand-in read it. */
export interface VertexCall {
  version: string;
  project: string;
  location: string;
  publisher: 'google' | 'anthropic';
  model: string;
  method: string;
  /** The bearer token it carried ('' when none). */
  token: string;
}

export interface VertexStandIn extends StandInUpstream {
  /** Every request that reached a Vertex route, read. */
  calls: VertexCall[];
  /** Access tokens it handed out at `/token`. */
  readonly tokenRequests: number;
}

/**
 * A user's Google credentials file, as `gcloud auth application-default login --login-config`
 * writes one for Workforce Identity Federation (`external_account_authorized_user`), whose token
 * exchange goes to the stand-in's `/token`: what a developer's machine holds when recording.
 */
export function userGoogleCredentials(standInUrl: string): Record<string, string> {
  return {
    type: 'external_account_authorized_user',
    audience: '//iam.googleapis.com/locations/global/workforcePools/fake-pool/providers/fake-provider',
    client_id: 'fake-client-id',
    client_secret: 'fake-client-secret',
    refresh_token: 'fake-refresh-token',
    token_url: `${standInUrl}/token`,
    project_id: 'fake-project',
    universe_domain: 'googleapis.com',
  };
}

const CREATE_TIME = '2026-12-05T09:00:00.000000Z';

/** A `generateContent` answer as Vertex AI gives it. */
export function vertexGenerateContent(model: string, text: string): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', avgLogprobs: -0.0421 }],
    usageMetadata: {
      promptTokenCount: 6,
      candidatesTokenCount: 9,
      totalTokenCount: 15,
      trafficType: 'ON_DEMAND',
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 6 }],
      candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: 9 }],
    },
    modelVersion: model,
    createTime: CREATE_TIME,
    responseId: 'fake-vertex-response-0',
  };
}

// A `streamGenerateContent?alt=sse` answer: each chunk one `data:` event, the last with the finish and the whole usage.
function vertexStream(model: string, words: readonly string[]): string[] {
  return words.map((word, index) => {
    const last = index === words.length - 1;
    const chunk = {
      candidates: [{ content: { role: 'model', parts: [{ text: word }] }, ...(last ? { finishReason: 'STOP' } : {}) }],
      usageMetadata: last
        ? { promptTokenCount: 5, candidatesTokenCount: words.length, totalTokenCount: 5 + words.length, trafficType: 'ON_DEMAND' }
        : { trafficType: 'ON_DEMAND' },
      modelVersion: model,
      createTime: CREATE_TIME,
      responseId: 'fake-vertex-response-1',
    };
    return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
  });
}

/** A Claude message as Vertex AI returns it from `:rawPredict` (Anthropic's Messages answer). */
export function vertexClaudeMessage(model: string, text: string): Record<string, unknown> {
  return {
    id: 'msg_vrtx_fake0000000000000000',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

const json = (status: number, body: unknown): StandInReply => ({
  status,
  headers: { 'content-type': 'application/json; charset=UTF-8' },
  body: JSON.stringify(body),
});

// The text of the last user turn of a Gemini or Anthropic body.
function promptOf(body: Record<string, any>): string {
  const last = (body.contents ?? body.messages ?? []).at(-1);
  if (last === undefined) return '';
  const parts = last.parts ?? (typeof last.content === 'string' ? [{ text: last.content }] : last.content);
  return (parts as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}

/**
 * Starts the stand-in on port 0. Every request must carry `Authorization: Bearer <accessToken>`
 * (a 401 in Google's shape otherwise). A prompt starting `Busy` gets the 429; a Claude body
 * without `anthropic_version`, or with a `model` (Vertex takes it from the path; only
 * `count-tokens:rawPredict` names it in the body), a 400.
 * Otherwise: `generateContent` answers `Hello from {model} in {location}: {prompt}`,
 * `streamGenerateContent?alt=sse` streams `One`, `, two`, `, three.`, `countTokens` counts,
 * `rawPredict` answers as Claude `Hello from {model}: {prompt}`, `streamRawPredict` streams the
 * captured sample, and `count-tokens:rawPredict` counts.
 */
export async function startVertexStandIn(accessToken: string): Promise<VertexStandIn> {
  const calls: VertexCall[] = [];
  let tokenRequests = 0;
  const standIn = (await startStandInUpstream((request: ReceivedRequest): StandInReply => {
    const [path, query = ''] = request.url.split('?') as [string, string?];
    // Google's token endpoint, for the user credentials of userGoogleCredentials(): a refresh grant gets the access token.
    if (path === '/token' && request.method === 'POST') {
      tokenRequests++;
      if (!request.body.includes('grant_type=refresh_token')) return json(400, { error: 'unsupported_grant_type' });
      return json(200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer', scope: 'https://www.googleapis.com/auth/cloud-platform' });
    }
    const match = VERTEX_PATH.exec(path);
    if (match === null || request.method !== 'POST')
      return json(404, { error: { code: 404, message: `stand-in: not a Vertex AI route: ${request.method} ${request.url}`, status: 'NOT_FOUND' } });
    const [, version, project, location, publisher, model, method] = match as unknown as [
      string,
      string,
      string,
      string,
      'google' | 'anthropic',
      string,
      string,
    ];
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    calls.push({ version, project: decodeURIComponent(project), location, publisher, model: decodeURIComponent(model), method, token });
    if (token !== accessToken) return json(401, VERTEX_UNAUTHENTICATED);
    const body = JSON.parse(request.body) as Record<string, any>;
    const prompt = promptOf(body);
    if (prompt.startsWith('Busy')) return json(429, VERTEX_RESOURCE_EXHAUSTED);
    const modelId = decodeURIComponent(model);
    if (publisher === 'google') {
      if (method === 'generateContent') return json(200, vertexGenerateContent(modelId, `Hello from ${modelId} in ${location}: ${prompt}`));
      if (method === 'streamGenerateContent' && new URLSearchParams(query).get('alt') === 'sse')
        return { headers: { 'content-type': 'text/event-stream' }, frames: vertexStream(modelId, ['One', ', two', ', three.']) };
      if (method === 'countTokens')
        return json(200, { totalTokens: 6, totalBillableCharacters: 22, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 6 }] });
    } else {
      // The token count names its model in the body (its path's "model" is `count-tokens`); a Messages call in the path only.
      const counting = modelId === 'count-tokens';
      if (typeof body.anthropic_version !== 'string' || counting !== (typeof body.model === 'string'))
        return json(400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'stand-in: a Vertex AI Claude body carries anthropic_version, and a model only to count-tokens' },
        });
      if (counting && method === 'rawPredict') return json(200, { input_tokens: 14 });
      if (method === 'rawPredict') return json(200, vertexClaudeMessage(modelId, `Hello from ${modelId}: ${prompt}`));
      if (method === 'streamRawPredict')
        return { headers: { 'content-type': 'text/event-stream; charset=utf-8' }, frames: sseFrames('anthropic/stream-text.sse') };
    }
    return json(400, { error: { code: 400, message: `stand-in: ${method} is not served for ${publisher}/${modelId}`, status: 'INVALID_ARGUMENT' } });
  })) as VertexStandIn;
  standIn.calls = calls;
  Object.defineProperty(standIn, 'tokenRequests', { get: () => tokenRequests });
  return standIn;
}
