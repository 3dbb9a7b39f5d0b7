// The surfaces the wire battery runs over: everything that claims to answer a wire API.
import { FakeProvider, type FakeServer } from 'modeltape/fake-provider';
import { startProxy, type ProxySummary } from 'modeltape/proxy';
import type { DropHandling, WireAnswer, WireApiUnderTest, WireRequest, WireSurface } from './wire-conformance.js';

type Upstream = WireApiUnderTest['upstream'];

const ORIGINS: Record<Upstream, string> = {
  openai: 'https://api.openai.com',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
  ollama: 'http://127.0.0.1:11434',
  bedrock: 'https://bedrock-runtime.us-east-1.amazonaws.com',
  // An Azure OpenAI resource's host: fake.fetch takes every path on it for Azure's (its v1 routes are OpenAI's paths).
  azure: 'https://modeltape-fake-resource.openai.azure.com',
  vertex: 'https://us-central1-aiplatform.googleapis.com',
};

/**
 * The answer's bytes as they came. A connection cut before the response (`fetch failed`) or
 * while the body came (`terminated`) is an answer too: `cut` says which, `text` holds what came.
 */
async function answerOf(send: () => Promise<Response>): Promise<WireAnswer> {
  let response: Response;
  try {
    response = await send();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return { status: 0, headers: new Headers(), text: '', bytes: new Uint8Array(0), cut: 'no-response' };
  }
  const chunks: Uint8Array[] = [];
  let cut: WireAnswer['cut'];
  const reader = response.body?.getReader();
  try {
    for (;;) {
      const read = await reader?.read();
      if (read === undefined || read.done) break;
      chunks.push(read.value);
    }
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    cut = 'mid-body';
  }
  const bytes = Buffer.concat(chunks);
  return { status: response.status, headers: response.headers, text: bytes.toString('utf8'), bytes, ...(cut === undefined ? {} : { cut }) };
}

// The headers each provider's client sends: the fake and the proxy tell a shared path
// (`/v1/models`) apart by them.
const HEADERS: Record<Upstream, Record<string, string>> = {
  openai: { 'content-type': 'application/json', authorization: 'Bearer fake-key' },
  anthropic: { 'content-type': 'application/json', 'x-api-key': 'fake-key', 'anthropic-version': '2023-06-01' },
  gemini: { 'content-type': 'application/json', 'x-goog-api-key': 'fake-key' },
  ollama: { 'content-type': 'application/json' },
  // The proxy signs a Bedrock request again for the upstream whatever signed it (nothing, here).
  bedrock: { 'content-type': 'application/json' },
  azure: { 'content-type': 'application/json', 'api-key': 'fake-key' },
  vertex: { 'content-type': 'application/json', authorization: 'Bearer fake-access-token' },
};

/**
 * Where the fake serves an upstream's paths over HTTP: Azure's under `/azure` (server.baseUrls.azure),
 * where a v1 route (`/openai/v1/…`, which takes no api-version) is Azure's and not OpenAI's.
 */
const FAKE_PREFIX: Partial<Record<Upstream, string>> = { azure: '/azure' };

function init(request: WireRequest, upstream: Upstream): RequestInit {
  return {
    method: request.method,
    headers: HEADERS[upstream],
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  };
}

/** Sends through a `fetch` to `base` + the provider's path (`base` may carry a prefix). */
function fetchSurface(name: string, drops: DropHandling, send: typeof fetch, base: string, upstream: Upstream, close: () => Promise<void>): WireSurface {
  return { name, drops, send: (request) => answerOf(() => send(`${base}${request.path}`, init(request, upstream))), close };
}

/** The fake in process: the official clients' `fetch: fake.fetch`. */
export function inProcess(fake: FakeProvider, api: WireApiUnderTest): WireSurface {
  return fetchSurface('fake.fetch', 'cut', fake.fetch, ORIGINS[api.upstream], api.upstream, async () => undefined);
}

/** The fake over HTTP on a loopback port. */
export async function overHttp(fake: FakeProvider, api: WireApiUnderTest): Promise<WireSurface & { server: FakeServer }> {
  const server = await fake.listen({ port: 0 });
  return { ...fetchSurface('fake.listen()', 'cut', fetch, `${server.url}${FAKE_PREFIX[api.upstream] ?? ''}`, api.upstream, () => server.close()), server };
}

/** A tape, replayed in process by FakeProvider.fromTape. */
export function fromTape(tape: string, api: WireApiUnderTest): WireSurface {
  const fake = FakeProvider.fromTape(tape);
  return fetchSurface('FakeProvider.fromTape', 'not-on-tape', fake.fetch, ORIGINS[api.upstream], api.upstream, async () => fake.assertConsumed());
}

/**
 * A proxy in front of the fake, or replaying a tape: requests go under its `/openai`,
 * `/anthropic`, `/gemini`, `/ollama`, `/bedrock`, `/azure` or `/vertex` prefix. Recording Bedrock, the proxy signs each
 * request for the upstream with the AWS credentials of its environment: placeholders here (the
 * fake checks no signature). `onClose` is told the proxy's summary.
 */
export async function throughProxy(
  name: string,
  tape: string,
  api: WireApiUnderTest,
  options: ({ mode: 'record'; upstream: string } | { mode: 'replay' }) & { onClose?: (summary: ProxySummary) => void },
): Promise<WireSurface> {
  const proxy = await startProxy({
    tape,
    mode: options.mode,
    ...(options.mode === 'record'
      ? {
          allowRecordInCi: true,
          upstreams: {
            openai: options.upstream,
            anthropic: options.upstream,
            gemini: options.upstream,
            ollama: options.upstream,
            bedrock: options.upstream,
            azure: `${options.upstream}${FAKE_PREFIX.azure}`,
            vertex: options.upstream,
          },
          env: { ...process.env, AWS_ACCESS_KEY_ID: 'AKIDFAKEFAKEFAKEFAKE', AWS_SECRET_ACCESS_KEY: 'fake-secret-access-key', AWS_PROFILE: undefined },
        }
      : {}),
  });
  return fetchSurface(name, options.mode === 'record' ? 'relayed' : 'not-on-tape', fetch, `${proxy.url}/${api.upstream}`, api.upstream, async () => {
    const summary = await proxy.close();
    options.onClose?.(summary);
    if (options.mode === 'replay' && summary.misses > 0) throw new Error(`${name}: ${summary.misses} requests missed the tape ${tape}`);
  });
}
