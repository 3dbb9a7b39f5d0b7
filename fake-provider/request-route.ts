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
  /** For an Azure OpenAI request: what its path and query say (see {@link azureRequestOf}). */
  azure?: AzureRequest;
}

/** What an Azure OpenAI request's path and query say. */
export interface AzureRequest {
  /** The deployment a `/openai/deployments/{deployment}/…` route names. */
  deployment?: string;
  /** The `api-version` of the query, if any. */
  apiVersion?: string;
  /** A v1 route (`/openai/v1/…`), which takes no api-version. */
  v1: boolean;
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
  const azure = azureRouteOf(method, pathAndQuery);
  if (azure !== undefined) return azure;
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

/**
 * An Azure OpenAI request, or undefined for any other. Azure's are: everything under `/azure/…`
 * (the fake's `baseUrls.azure`, where `AzureOpenAI` puts `/openai/…` after its endpoint, and an
 * `OpenAI` client its v1 routes, `/azure/openai/v1/…`); a `/openai/deployments/{deployment}/…`
 * route, which OpenAI's API has not; and any request whose query holds `api-version`, which
 * `AzureOpenAI` adds to every request and OpenAI's API takes none of (`/openai/responses?api-version=…`,
 * and `/v1/deployments/…?api-version=…` from an `AzureOpenAI` that read `OPENAI_BASE_URL`).
 */
function azureRouteOf(method: string, pathAndQuery: string): RequestRoute | undefined {
  const [rawPath, query = ''] = pathAndQuery.split('?') as [string, string?];
  const apiVersion = new URLSearchParams(query).get('api-version') ?? undefined;
  const under = /^\/azure(?=\/)/.exec(rawPath);
  let path = under === null ? rawPath : rawPath.slice(under[0].length);
  if (under === null && apiVersion === undefined && !/^\/openai(?:\/v1)?\/deployments\/[^/]+\//.test(path)) return undefined;
  // The deployment routes, whether `AzureOpenAI` built them on `…/openai` or (from OPENAI_BASE_URL) on `…/openai/v1` or `…/v1`.
  path = path.replace(/^(?:\/openai)?\/v1(?=\/deployments\/)/, '/openai');
  if (!path.startsWith('/openai/')) path = `/openai${path}`;
  const v1 = path.startsWith('/openai/v1/');
  const deploymentMatch = /^\/openai\/deployments\/([^/]+)\//.exec(path);
  let deployment: string | undefined;
  try {
    deployment = deploymentMatch === null ? undefined : decodeURIComponent(deploymentMatch[1]!);
  } catch {
    deployment = deploymentMatch![1];
  }
  const route = routeOf(method, path, 'azure');
  return Object.freeze({
    method: method.toUpperCase(),
    path,
    prefixed: undefined,
    route: route === undefined ? undefined : Object.freeze(route),
    provider: 'azure',
    shownPath: redactPathQuery(pathAndQuery),
    azure: Object.freeze({ v1, ...(deployment === undefined ? {} : { deployment }), ...(apiVersion === undefined ? {} : { apiVersion }) }),
  });
}
