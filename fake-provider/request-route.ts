import { redactPathQuery } from '../recordings/internal.js';
import { routeOf, withoutProviderPrefix, type Provider, type Route } from '../providers/internal.js';

/** Where a request goes, read from its method, path and two headers only. */
export interface RequestRoute {
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
// expressions: kept by what decides them, bounded, cleared whole when full.
const KEPT_ROUTES = 256;
const routes = new Map<string, RequestRoute>();

/** The route of a request, the same for the same method, path and query, and headers that name a provider. */
export function requestRoute(method: string, pathAndQuery: string, headers: Record<string, string>): RequestRoute {
  const anthropicVersion = headers['anthropic-version'] !== undefined;
  const googleKey = headers['x-goog-api-key'] !== undefined;
  const key = `${method} ${anthropicVersion ? 'a' : '-'}${googleKey ? 'g' : '-'} ${pathAndQuery}`;
  let known = routes.get(key);
  if (known === undefined) {
    known = readRoute(method, pathAndQuery, anthropicVersion, googleKey);
    if (routes.size >= KEPT_ROUTES) routes.clear();
    routes.set(key, known);
  }
  return known;
}

function readRoute(method: string, pathAndQuery: string, anthropicVersion: boolean, googleKey: boolean): RequestRoute {
  const { path, prefixed } = withoutProviderPrefix(pathAndQuery.split('?')[0]!);
  // A path two providers share (`/v1/models`) is the one its prefix or headers name.
  const route = routeOf(method, path, prefixed ?? (anthropicVersion ? 'anthropic' : undefined));
  // A path no route has is answered in the shape of the provider it looks like: Ollama's paths
  // start /api/, Gemini's are `/v1beta/…` or `…:method`.
  const provider =
    route?.provider ?? prefixed ?? (path.startsWith('/api/') ? 'ollama' : /^\/v1(beta|alpha)\/|:[A-Za-z]+$/.test(path) || googleKey ? 'gemini' : 'openai');
  return Object.freeze({ path, prefixed, route: route === undefined ? undefined : Object.freeze(route), provider, shownPath: redactPathQuery(pathAndQuery) });
}
