import { providerPath } from '../replay/index.js';
import type { Upstream } from './upstream-table.js';

/** Where a proxied request goes. */
export interface Route {
  upstream: Upstream;
  /** The path on the provider, as keyed and recorded (e.g. `/v1/messages`). */
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  /** What is forwarded: the upstream's base path, the path, and the query. */
  forwardPath: string;
}

/**
 * Routes `/<upstream>/<rest>?query` to an upstream. Returns the upstream name that was asked for
 * when it is not configured, so the caller can say which names are.
 *
 * Anthropic's two clients build different paths from one `ANTHROPIC_BASE_URL`:
 * `@anthropic-ai/sdk` appends `/v1/messages`, `@ai-sdk/anthropic` appends `/messages`.
 * For an Anthropic upstream a path without `/v1` gets it, so both key on the same provider path
 * and one recording serves both clients.
 */
export function routeRequest(url: string, table: ReadonlyMap<string, Upstream>): Route | { unknown: string } {
  // An absolute URL (`GET http://host/…`) asks for an open forward proxy; this is not one.
  if (!url.startsWith('/')) return { unknown: url };
  const questionMark = url.indexOf('?');
  const pathname = questionMark < 0 ? url : url.slice(0, questionMark);
  const query = questionMark < 0 ? '' : url.slice(questionMark + 1);
  const slash = pathname.indexOf('/', 1);
  const name = slash < 0 ? pathname.slice(1) : pathname.slice(1, slash);
  const upstream = table.get(name);
  if (upstream === undefined) return { unknown: name };
  const path = providerPath(upstream.flavor, slash < 0 ? '/' : pathname.slice(slash));
  const forwardPath = `${upstream.basePath}${path}${query === '' ? '' : `?${query}`}`;
  return { upstream, path, query, forwardPath };
}
