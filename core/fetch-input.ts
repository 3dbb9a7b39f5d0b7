// What a `fetch(input, init)` call asks for, read as fetch itself reads it: the in-process
// answerers (`fake.fetch`, `session.fetch`, `FakeProvider.fromTape(…).fetch`) take the same
// arguments as the global fetch and must see the same request.

/** A fetch call's request: its method, URL, headers (names lower-cased, repeats joined by `, `), body and signal. */
export interface FetchInput {
  readonly method: string;
  readonly url: URL;
  readonly headers: Record<string, string>;
  /** The body's bytes, or its text as given (a string is UTF-8 on the wire); undefined when there is none. */
  readonly body: string | Uint8Array | undefined;
  readonly signal: AbortSignal | undefined;
}

// The methods fetch upper-cases (the Fetch standard's "normalize"); PATCH is not among them.
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

/**
 * Reads a fetch call's request. The SDKs pass a URL and a string (or byte) body: that is read
 * directly, as `new Request(input, init)` would read it (a string body without a content type is
 * `text/plain;charset=UTF-8`), because building a Request — its body stream and its abort signal —
 * costs more than answering it in process. Anything else (a Request, a stream or form body, a
 * method or URL fetch refuses) goes through `new Request`, which also throws fetch's own errors.
 */
export async function readFetchInput(input: string | URL | Request, init?: RequestInit): Promise<FetchInput> {
  const fast = directly(input, init);
  if (fast !== undefined) return fast;
  const request = new Request(input, init);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
  return { method: request.method, url: new URL(request.url), headers, body, signal: request.signal };
}

function directly(input: string | URL | Request, init: RequestInit | undefined): FetchInput | undefined {
  if (typeof input !== 'string' && !(input instanceof URL)) return undefined;
  const given = init?.method;
  const method = given === undefined ? 'GET' : NORMALIZED_METHODS.has(given.toUpperCase()) ? given.toUpperCase() : given === 'PATCH' ? given : undefined;
  if (method === undefined) return undefined;
  const raw = init?.body;
  let body: string | Uint8Array | undefined;
  if (raw === undefined || raw === null) body = undefined;
  else if (typeof raw === 'string' || raw instanceof Uint8Array) body = raw;
  else if (raw instanceof ArrayBuffer) body = new Uint8Array(raw);
  else return undefined;
  // fetch refuses a body on GET and HEAD: new Request throws its TypeError.
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) return undefined;
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input) : input;
  } catch {
    return undefined;
  }
  // fetch refuses a URL with credentials in it.
  if (url.username !== '' || url.password !== '') return undefined;
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  if (typeof raw === 'string' && headers['content-type'] === undefined) headers['content-type'] = 'text/plain;charset=UTF-8';
  return { method, url, headers, body, signal: init?.signal ?? undefined };
}
