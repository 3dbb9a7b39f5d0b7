// OpenAI's REST answers that mint a Realtime client secret: the ephemeral key (`ek_…`, valid a
// minute) a browser or phone connects to the Realtime API with, in place of the API key.
//   POST /v1/realtime/client_secrets          → { value, expires_at, session }
//   POST /v1/realtime/sessions                → { …session, client_secret: { value, expires_at } }
//   POST /v1/realtime/transcription_sessions  → the same (the beta routes)

const CLIENT_SECRET_ROUTES: ReadonlyArray<[RegExp, ReadonlyArray<readonly string[]>]> = [
  [/^(?:\/v1)?\/realtime\/client_secrets$/, [['value'], ['client_secret', 'value']]],
  [/^(?:\/v1)?\/realtime\/(?:transcription_)?sessions$/, [['client_secret', 'value']]],
];

/** What a tape keeps in place of a client secret's value. */
export const CLIENT_SECRET_PLACEHOLDER = 'REDACTED';

/**
 * The answer to a request that mints a Realtime client secret, with the secret's value replaced by
 * {@link CLIENT_SECRET_PLACEHOLDER}, and every other byte as it came; any other answer as it is.
 * The value is replaced where the JSON text spells it as JSON.stringify does (the API's own
 * spelling); spelled otherwise, it stays, and the scan of the exchange finds it.
 */
export function withoutClientSecret(method: string, path: string, body: Buffer): Buffer {
  if (method !== 'POST') return body;
  const fields = CLIENT_SECRET_ROUTES.find(([route]) => route.test(path))?.[1];
  if (fields === undefined) return body;
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  let text = body.toString('utf8');
  for (const field of fields) {
    const value = field.reduce<unknown>((at, name) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[name] : undefined), json);
    if (typeof value === 'string' && value !== '') text = text.replaceAll(JSON.stringify(value), JSON.stringify(CLIENT_SECRET_PLACEHOLDER));
  }
  return Buffer.from(text, 'utf8');
}
