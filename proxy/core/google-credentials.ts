// Placeholder Google credentials, for a replay with no Google account. Google's auth libraries
// (google-auth-library, which @google/genai, @anthropic-ai/vertex-sdk and @ai-sdk/google-vertex
// use) fetch an access token before the first call to Vertex AI; these credentials send that
// exchange to the proxy, which answers it with a placeholder token and sends nothing anywhere.
import { REPLAY_PLACEHOLDER_KEY } from './placeholder-key.js';

/** The proxy's own token endpoint: a `POST` here gets a placeholder access token, in every mode. */
export const GOOGLE_TOKEN_PATH = '/_modeltape/google-token';

/** Where Google's clients ask the GCE metadata server (`GCE_METADATA_HOST`); the proxy says it is none. */
export const METADATA_PATH_PREFIX = '/computeMetadata/';

/**
 * A credentials file's content (what `GOOGLE_APPLICATION_CREDENTIALS` names, or
 * `new GoogleAuth({ credentials })` takes) whose token exchange the proxy answers offline.
 * Its type is Workforce Identity Federation's `external_account_authorized_user`: the one type
 * whose token endpoint a file names, and which signs nothing (no private key to make up).
 */
export interface PlaceholderGoogleCredentials {
  type: 'external_account_authorized_user';
  audience: string;
  client_id: string;
  client_secret: string;
  refresh_token: string;
  /** `${proxyUrl}/_modeltape/google-token`. */
  token_url: string;
  /** `modeltape-replay-placeholder`: the project code that takes its project from the credentials sees (see docs/vertex.md). */
  project_id: string;
  universe_domain: 'googleapis.com';
}

/**
 * Placeholder Google credentials whose token exchange the proxy at `proxyUrl` answers offline
 * with a placeholder access token (`modeltape-replay-placeholder`), so that a Vertex AI client
 * built with them replays with no Google account and no network. Give them to the client's auth
 * (`googleAuthOptions: { credentials }`, `new GoogleAuth({ credentials, scopes })`), or write
 * them to a file that `GOOGLE_APPLICATION_CREDENTIALS` names; `modeltape run` does the latter.
 * @example
 * const session = await openTape('tapes/vertex.jsonl');
 * const ai = new GoogleGenAI({ vertexai: true, project, location,
 *   httpOptions: { baseUrl: session.baseUrls.vertex },
 *   googleAuthOptions: { credentials: placeholderGoogleCredentials(session.baseUrls.url) } });
 */
export function placeholderGoogleCredentials(proxyUrl: string): PlaceholderGoogleCredentials {
  return {
    type: 'external_account_authorized_user',
    audience: `//iam.googleapis.com/locations/global/workforcePools/${REPLAY_PLACEHOLDER_KEY}/providers/${REPLAY_PLACEHOLDER_KEY}`,
    client_id: REPLAY_PLACEHOLDER_KEY,
    client_secret: REPLAY_PLACEHOLDER_KEY,
    refresh_token: REPLAY_PLACEHOLDER_KEY,
    token_url: `${proxyUrl.replace(/\/+$/, '')}${GOOGLE_TOKEN_PATH}`,
    project_id: REPLAY_PLACEHOLDER_KEY,
    universe_domain: 'googleapis.com',
  };
}

/** What the proxy answers on its own Google routes, or undefined for a request that is not for one. */
export function googleAuthAnswer(method: string, url: string): { status: number; headers: Record<string, string>; body: string } | undefined {
  const path = url.split('?', 1)[0]!;
  if (path === GOOGLE_TOKEN_PATH) {
    if (method.toUpperCase() !== 'POST') return json(405, { error: 'invalid_request', error_description: `modeltape: ${GOOGLE_TOKEN_PATH} takes a POST` });
    // An OAuth token response (RFC 6749 §5.1), as oauth2.googleapis.com and sts.googleapis.com answer.
    return json(200, { access_token: REPLAY_PLACEHOLDER_KEY, expires_in: 3600, token_type: 'Bearer', scope: 'https://www.googleapis.com/auth/cloud-platform' });
  }
  if (path.startsWith(METADATA_PATH_PREFIX)) {
    // A client that asks the metadata server anyway (GCE_METADATA_HOST names the proxy) learns
    // there is nothing here: no project, no token, no service account.
    const answer = json(404, { error: 'modeltape: no Google Cloud metadata server here; a replay uses placeholder credentials' });
    answer.headers['metadata-flavor'] = 'Google';
    return answer;
  }
  return undefined;
}

function json(status: number, body: unknown): { status: number; headers: Record<string, string>; body: string } {
  const text = JSON.stringify(body);
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), 'cache-control': 'no-store' },
    body: text,
  };
}
