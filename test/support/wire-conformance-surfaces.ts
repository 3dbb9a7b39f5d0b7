// The surfaces the wire battery runs over: everything that claims to answer a wire API.
import { FakeProvider, type FakeServer } from 'modeltape/fake-provider';
import { startProxy } from 'modeltape/proxy';
import type { WireAnswer, WireApiUnderTest, WireRequest, WireSurface } from './wire-conformance.js';

const ORIGINS = { openai: 'https://api.openai.com', anthropic: 'https://api.anthropic.com' };

async function answerOf(response: Response): Promise<WireAnswer> {
  return { status: response.status, headers: response.headers, text: await response.text() };
}

// The headers each provider's client sends: the fake and the proxy tell a shared path
// (`/v1/models`) apart by them.
const HEADERS = {
  openai: { 'content-type': 'application/json', authorization: 'Bearer fake-key' },
  anthropic: { 'content-type': 'application/json', 'x-api-key': 'fake-key', 'anthropic-version': '2023-06-01' },
};

function init(request: WireRequest, upstream: WireApiUnderTest['upstream']): RequestInit {
  return {
    method: request.method,
    headers: HEADERS[upstream],
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  };
}

/** Sends through a `fetch` to `base` + the provider's path (`base` may carry a prefix). */
function fetchSurface(name: string, send: typeof fetch, base: string, upstream: WireApiUnderTest['upstream'], close: () => Promise<void>): WireSurface {
  return { name, send: async (request) => answerOf(await send(`${base}${request.path}`, init(request, upstream))), close };
}

/** The fake in process: the official clients' `fetch: fake.fetch`. */
export function inProcess(fake: FakeProvider, api: WireApiUnderTest): WireSurface {
  return fetchSurface('fake.fetch', fake.fetch, ORIGINS[api.upstream], api.upstream, async () => undefined);
}

/** The fake over HTTP on a loopback port. */
export async function overHttp(fake: FakeProvider, api: WireApiUnderTest): Promise<WireSurface & { server: FakeServer }> {
  const server = await fake.listen({ port: 0 });
  return { ...fetchSurface('fake.listen()', fetch, server.url, api.upstream, () => server.close()), server };
}

/** A tape, replayed in process by FakeProvider.fromTape. */
export function fromTape(tape: string, api: WireApiUnderTest): WireSurface {
  const fake = FakeProvider.fromTape(tape);
  return fetchSurface('FakeProvider.fromTape', fake.fetch, ORIGINS[api.upstream], api.upstream, async () => fake.assertConsumed());
}

/** A proxy in front of the fake, or replaying a tape: requests go under its `/openai` or `/anthropic` prefix. */
export async function throughProxy(
  name: string,
  tape: string,
  api: WireApiUnderTest,
  options: { mode: 'record'; upstream: string } | { mode: 'replay' },
): Promise<WireSurface> {
  const proxy = await startProxy({
    tape,
    mode: options.mode,
    ...(options.mode === 'record' ? { allowRecordInCi: true, upstreams: { openai: options.upstream, anthropic: options.upstream } } : {}),
  });
  return fetchSurface(name, fetch, `${proxy.url}/${api.upstream}`, api.upstream, async () => {
    const summary = await proxy.close();
    if (options.mode === 'replay' && summary.misses > 0) throw new Error(`${name}: ${summary.misses} requests missed the tape ${tape}`);
  });
}
