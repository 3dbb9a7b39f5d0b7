import { redactPathQuery } from '../recordings/internal.js';
import { errorProviderOf, routeOf, withoutProviderPrefix, type Provider, type Route } from '../providers/internal.js';

/** Where a request goes, read from its method, path and two headers only. */
export interface RequestRoute {
  /** The method in upper case. */
  method: string;
  /** The path without its query and its provider prefix. */
  path: string;
  /** The provider the path's prefix (`/openai/…`) names. */
  prefixed: Provider | undefined;
  /** The wire API, or undefined for a path no route has. */
  route: Readonly<Route> | undefined;
  /** Whose shape the answer takes: the route's provider, else the one the path or headers look like. */
  provider: Provider;
  /** The path and query as `calls()` shows it, credentials in the query redacted. */
  shownPath: string;
}

// A client sends the same few paths call after call, and reading one costs a dozen regular
// expressions: kept by method, by which of the two headers came, then by path, bounded, and
// cleared whole when full.
const KEPT_ROUTES = 256;
const routes = new Map<string, Array<Map<string, RequestRoute>>>();
let routesKept = 0;

/** The route of a request, the same for the same method, path and query, and headers that name a provider. */
export function requestRoute(method: string, pathAndQuery: string, headers: Record<string, string>): RequestRoute {
  const anthropicVersion = headers['anthropic-version'] !== undefined;
  const googleKey = headers['x-goog-api-key'] !== undefined;
  let byHeaders = routes.get(method);
  if (byHeaders === undefined) routes.set(method, (byHeaders = [new Map(), new Map(), new Map(), new Map()]));
  const byPath = byHeaders[(anthropicVersion ? 2 : 0) + (googleKey ? 1 : 0)]!;
  let known = byPath.get(pathAndQuery);
  if (known === undefined) {
    known = readRoute(method, pathAndQuery, anthropicVersion, googleKey);
    if (routesKept >= KEPT_ROUTES) {
      for (const maps of routes.values()) for (const kept of maps) kept.clear();
      routesKept = 0;
    }
    byPath.set(pathAndQuery, known);
    routesKept++;
  }
  return known;
}

function readRoute(method: string, pathAndQuery: string, anthropicVersion: boolean, googleKey: boolean): RequestRoute {
  const { path, prefixed } = withoutProviderPrefix(pathAndQuery.split('?')[0]!);
  // A path two providers share (`/v1/models`) is the one its prefix or headers name.
  const route = routeOf(method, path, prefixed ?? (anthropicVersion ? 'anthropic' : undefined));
  // A path no route has is answered in the shape of the provider it looks like: Ollama's paths
  // start /api/, Gemini's are `/v1beta/…` or `…:method`.
  // Vertex AI's Claude paths answer in Anthropic's shape, its Gemini paths in Google's.
  const provider =
    (route === undefined ? undefined : errorProviderOf(route.provider, path)) ??
    prefixed ??
    (path.startsWith('/api/') ? 'ollama' : /^\/v1(beta|alpha)\/|:[A-Za-z]+$/.test(path) || googleKey ? 'gemini' : 'openai');
  return Object.freeze({
    method: method.toUpperCase(),
    path,
    prefixed,
    route: route === undefined ? undefined : Object.freeze(route),
    provider,
    shownPath: redactPathQuery(pathAndQuery),
  });
}
