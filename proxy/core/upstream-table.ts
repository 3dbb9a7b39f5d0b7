import { SIDE_CHANNELS } from '../../guard/internal.js';
import { ModeltapeError } from '../../core/internal.js';
import { redactUrl } from '../../recordings/internal.js';

import { guessProvider, vertexLocationOf, type Provider } from '../../providers/internal.js';

// Vertex AI's global endpoint: the built-in vertex upstream, whose requests go to their location's host.
const VERTEX_GLOBAL_URL = 'https://aiplatform.googleapis.com';

// The built-in azure upstream's URL until one is given: never reached.
const AZURE_UNSET_URL = 'https://azure-openai-endpoint-not-set.invalid';
const AZURE_UNSET =
  'no Azure OpenAI endpoint is set: give the resource as --upstream azure=https://RESOURCE.openai.azure.com (or "upstreams": { "azure": … } in modeltape.config.json), or set AZURE_OPENAI_ENDPOINT in the environment modeltape runs in';

export type { Provider };

/** A place the proxy may forward to. The proxy forwards only to these: never an open proxy. */
export interface Upstream {
  /** The first path segment clients use: `/<name>/…`. Lowercase letters, digits, `-`, `_`. */
  name: string;
  /** The base URL requests are forwarded to, e.g. `https://api.openai.com`. */
  baseUrl: string;
  /** Scheme, host and port of `baseUrl`. */
  origin: string;
  /** The path of `baseUrl` without a trailing slash (usually empty); prefixed when forwarding. */
  basePath: string;
  provider: Provider;
  /**
   * Set when the upstream has no real URL yet (the built-in `azure` before `--upstream azure=…`
   * or `AZURE_OPENAI_ENDPOINT` names a resource): what to set. Replay answers its requests from
   * the tape; a request that must be forwarded is refused with this.
   */
  unset?: string;
}

/**
 * The upstreams every proxy knows. `--upstream name=url` adds one or overrides one of these.
 * `local` marks a server of the user's own on this machine (vLLM, LM Studio): a replay does not
 * refuse its port, which other services of a suite may use.
 */
export const BUILT_IN_UPSTREAMS: Readonly<Record<string, { baseUrl: string; provider: Provider; local?: true }>> = {
  openai: { baseUrl: 'https://api.openai.com', provider: 'openai' },
  anthropic: { baseUrl: 'https://api.anthropic.com', provider: 'anthropic' },
  gemini: { baseUrl: 'https://generativelanguage.googleapis.com', provider: 'gemini' },
  ollama: { baseUrl: 'http://127.0.0.1:11434', provider: 'ollama' },
  // Azure OpenAI has no one host: each resource has its own. A stand-in that never resolves
  // (`.invalid` is reserved) until `--upstream azure=https://RESOURCE.openai.azure.com` or
  // AZURE_OPENAI_ENDPOINT names one; nothing is ever sent to it (see `unset`).
  azure: { baseUrl: AZURE_UNSET_URL, provider: 'azure' },
  // Bedrock Runtime in us-east-1 until AWS_REGION (or AWS_DEFAULT_REGION) names another region,
  // or --upstream bedrock=… (or AWS_ENDPOINT_URL_BEDROCK_RUNTIME) another endpoint.
  bedrock: { baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com', provider: 'bedrock' },
  // Vertex AI has a host per location: each request goes to the one its path names
  // (`/v1/projects/{p}/locations/us-central1/…` to us-central1-aiplatform.googleapis.com; see
  // vertexUpstreamFor), this global endpoint for `global`, until --upstream vertex=… names one.
  vertex: { baseUrl: VERTEX_GLOBAL_URL, provider: 'vertex' },
  // OpenAI-compatible hosts teams reach through the `openai` package (or their own SDKs): presets,
  // so `$MODELTAPE_URL/groq/openai/v1` works with no --upstream. Each host's path is its API's
  // base as its own clients append to it (docs/proxy.md lists the base URL each client takes).
  openrouter: { baseUrl: 'https://openrouter.ai/api', provider: 'openai' },
  groq: { baseUrl: 'https://api.groq.com', provider: 'openai' },
  together: { baseUrl: 'https://api.together.xyz', provider: 'openai' },
  fireworks: { baseUrl: 'https://api.fireworks.ai/inference', provider: 'openai' },
  deepseek: { baseUrl: 'https://api.deepseek.com', provider: 'openai' },
  mistral: { baseUrl: 'https://api.mistral.ai', provider: 'openai' },
  xai: { baseUrl: 'https://api.x.ai', provider: 'openai' },
  vllm: { baseUrl: 'http://127.0.0.1:8000', provider: 'openai', local: true },
  lmstudio: { baseUrl: 'http://127.0.0.1:1234', provider: 'openai', local: true },
};

/** Hosts a preset's own clients also use for it (together-ai 0.52 defaults to api.together.ai). */
const PRESET_ALIAS_HOSTS = ['api.together.ai'] as const;

/** The hosts of Azure OpenAI resources, as the replay guard refuses them (a `*.` entry matches every name under it). */
export const AZURE_HOSTS = ['*.openai.azure.com', '*.cognitiveservices.azure.com'] as const;

/** Bedrock Runtime's endpoints in every region, as the replay guard refuses them (a `*` label matches one label). */
export const BEDROCK_HOSTS = ['bedrock-runtime.*.amazonaws.com', 'bedrock-runtime-fips.*.amazonaws.com'] as const;

/**
 * Vertex AI's endpoints in every location (`us-central1-aiplatform.googleapis.com`, the global
 * `aiplatform.googleapis.com`, the multi-regions `aiplatform.us.rep.googleapis.com`), and Google's
 * OAuth token endpoint, which an auth library asks for an access token before the first call: as
 * the replay guard refuses them.
 */
export const VERTEX_HOSTS = ['aiplatform.googleapis.com', '*-aiplatform.googleapis.com', 'aiplatform.*.rep.googleapis.com', 'oauth2.googleapis.com'] as const;

/**
 * The cloud providers whose hosts name the user's own resource, region or location, each with
 * what matches its hosts (a host name, as a URL's `hostname` gives it) and its entries in
 * `providerHosts`, which the replay guard names when it stops a request to one of them. The
 * OAuth token endpoint is not among Vertex's here: it is no model API a session answers.
 */
export const CLOUD_HOSTS: ReadonlyArray<{ name: 'azure' | 'bedrock' | 'vertex'; host: RegExp; guardEntries: readonly string[] }> = [
  { name: 'azure', host: /^[a-z0-9-]+\.(?:openai|cognitiveservices)\.azure\.com$/, guardEntries: AZURE_HOSTS },
  { name: 'bedrock', host: /^bedrock-runtime(?:-fips)?\.[a-z0-9-]+\.amazonaws\.com$/, guardEntries: BEDROCK_HOSTS },
  {
    name: 'vertex',
    host: /^(?:[a-z0-9-]+-aiplatform|aiplatform|aiplatform\.[a-z0-9-]+\.rep)\.googleapis\.com$/,
    guardEntries: VERTEX_HOSTS.filter((host) => host !== 'oauth2.googleapis.com'),
  },
];

/** The built-in cloud upstream (`azure`, `bedrock`, `vertex`) a host belongs to, whatever resource, region or location it names. */
export function cloudUpstreamOf(hostname: string): 'azure' | 'bedrock' | 'vertex' | undefined {
  const name = hostname.toLowerCase();
  return CLOUD_HOSTS.find(({ host }) => host.test(name))?.name;
}

/**
 * The upstream a Vertex AI request is forwarded to: the built-in `vertex` upstream sends each
 * request to the host of the location its path names (`us-central1` to
 * `https://us-central1-aiplatform.googleapis.com`, `global` to `https://aiplatform.googleapis.com`,
 * the multi-regions `us` and `eu` to `https://aiplatform.us.rep.googleapis.com`), as Google's
 * clients do; an upstream given with `--upstream vertex=URL` (a stand-in, a gateway) and any
 * other upstream is returned as it is. The name stays `vertex`: the tape never names the host.
 */
export function vertexUpstreamFor(upstream: Upstream, path: string): Upstream {
  if (upstream.provider !== 'vertex' || upstream.baseUrl !== VERTEX_GLOBAL_URL) return upstream;
  const location = vertexLocationOf(path)?.location.toLowerCase();
  if (location === undefined || location === 'global' || !/^[a-z][a-z0-9-]{0,62}$/.test(location)) return upstream;
  const host = location === 'us' || location === 'eu' ? `aiplatform.${location}.rep.googleapis.com` : `${location}-aiplatform.googleapis.com`;
  return { ...upstream, baseUrl: `https://${host}`, origin: `https://${host}` };
}

/**
 * The upstream table: the built-ins with `overrides` applied. An override keeps the built-in's
 * provider; a new name takes the provider its name or host suggests (`…anthropic…`, `…gemini…`,
 * `…ollama…`), else OpenAI's, which most compatible servers follow. A URL whose scheme is
 * `mcp+http:` or `mcp+https:` is an MCP server's Streamable HTTP endpoint
 * (`docs=mcp+https://mcp.example.com/mcp`), reached at the URL without `mcp+`.
 */
export function buildUpstreamTable(overrides: Readonly<Record<string, string>> = {}): Map<string, Upstream> {
  const table = new Map<string, Upstream>(BUILT_IN_TABLE);
  for (const [name, given] of Object.entries(overrides)) {
    const mcp = MCP_SCHEME.test(given);
    const baseUrl = mcp ? given.slice('mcp+'.length) : given;
    const provider = mcp ? 'mcp' : (BUILT_IN_UPSTREAMS[name]?.provider ?? guessProvider(name, baseUrl));
    table.set(name, makeUpstream(name, baseUrl, provider));
  }
  return table;
}

// An MCP server's endpoint: its URL behind `mcp+`.
const MCP_SCHEME = /^mcp\+https?:/i;

// The built-ins, parsed once: every session's table starts from them (read-only, shared).
const BUILT_IN_TABLE: ReadonlyArray<[string, Upstream]> = Object.entries(BUILT_IN_UPSTREAMS).map(([name, { baseUrl, provider }]) => [
  name,
  Object.freeze(makeUpstream(name, baseUrl, provider)),
]);

/** Parses `name=url` as given to `--upstream`. */
export function parseUpstreamFlag(value: string): { name: string; baseUrl: string } {
  const equals = value.indexOf('=');
  if (equals <= 0)
    throw new ModeltapeError(
      'invalid_upstream',
      `Invalid --upstream ${JSON.stringify(redactUrl(value))}: expected name=url, e.g. --upstream openai=http://127.0.0.1:8080`,
    );
  return { name: value.slice(0, equals), baseUrl: value.slice(equals + 1) };
}

function makeUpstream(name: string, baseUrl: string, provider: Provider): Upstream {
  if (baseUrl === AZURE_UNSET_URL) return { name, baseUrl, origin: new URL(baseUrl).origin, basePath: '', provider, unset: AZURE_UNSET };
  // What a message shows of the URL: a credential it carries is why it is refused, not for the log.
  const shown = JSON.stringify(redactUrl(baseUrl));
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) {
    throw new ModeltapeError(
      'invalid_upstream',
      `Invalid upstream name ${JSON.stringify(name)}: use lowercase letters, digits, "-" and "_" (it becomes the first path segment, /${name}/…)`,
    );
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (error) {
    throw new ModeltapeError(
      'invalid_upstream',
      `Invalid URL for upstream "${name}": ${shown}. Expected e.g. https://api.openai.com or http://127.0.0.1:8080`,
      { cause: error },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModeltapeError(
      'invalid_upstream',
      `Invalid URL for upstream "${name}": ${shown} is not http or https (an MCP server's is mcp+http or mcp+https)`,
    );
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ModeltapeError('invalid_upstream', `Invalid URL for upstream "${name}": ${shown} must not carry credentials, a query or a fragment`);
  }
  return { name, baseUrl, origin: url.origin, basePath: url.pathname.replace(/\/+$/, ''), provider };
}

/**
 * The hosts no request may reach during a replay: every upstream's (`host`, or `host:port` when
 * the URL names a port), the built-in providers' even when overridden, every Azure OpenAI
 * resource's (`*.openai.azure.com`, `*.cognitiveservices.azure.com`), Bedrock Runtime's in every
 * region (`bedrock-runtime.*.amazonaws.com`), Vertex AI's in every location and Google's OAuth
 * token endpoint (VERTEX_HOSTS), and the providers' known
 * side channels (an SDK's trace exporter that ignores the base URL).
 */
export function providerHosts(table: ReadonlyMap<string, Upstream>): readonly string[] {
  const own: string[] = [];
  for (const upstream of table.values()) {
    // A local preset left as built in (vLLM on 127.0.0.1:8000) is the user's own server, not a provider.
    if (upstream.unset !== undefined || (BUILT_IN_UPSTREAMS[upstream.name]?.local === true && upstream.baseUrl === BUILT_IN_UPSTREAMS[upstream.name]!.baseUrl))
      continue;
    own.push(hostOf(upstream));
  }
  // Every session of a suite has the same upstreams: the same list, made once.
  const id = own.join(' ');
  let hosts = providerHostLists.get(id);
  if (hosts === undefined) {
    hosts = Object.freeze([...new Set([...builtInHosts(), ...own])].sort());
    if (providerHostLists.size >= PROVIDER_HOST_LISTS_KEPT) providerHostLists.delete(providerHostLists.keys().next().value!);
    providerHostLists.set(id, hosts);
  }
  return hosts;
}

const providerHostLists = new Map<string, readonly string[]>();
const PROVIDER_HOST_LISTS_KEPT = 32;

// An upstream's host, parsed once per upstream: the built-ins are shared by every session's table.
const hosts = new WeakMap<Upstream, string>();
function hostOf(upstream: Upstream): string {
  let host = hosts.get(upstream);
  if (host === undefined) {
    host = new URL(upstream.baseUrl).host.toLowerCase();
    hosts.set(upstream, host);
  }
  return host;
}

// The built-in providers' hosts and their side channels, the same for every proxy: found once.
let builtIn: readonly string[] | undefined;
function builtInHosts(): readonly string[] {
  if (builtIn === undefined) {
    const hosts = new Set<string>();
    for (const { baseUrl, local } of Object.values(BUILT_IN_UPSTREAMS))
      if (baseUrl !== AZURE_UNSET_URL && local !== true) hosts.add(new URL(baseUrl).host.toLowerCase());
    for (const host of [...AZURE_HOSTS, ...BEDROCK_HOSTS, ...VERTEX_HOSTS, ...PRESET_ALIAS_HOSTS]) hosts.add(host);
    for (const channel of SIDE_CHANNELS) hosts.add(channel.host);
    builtIn = Object.freeze([...hosts]);
  }
  return builtIn;
}

/**
 * An upstream's URL as a message shows it. An Azure OpenAI resource's host names the user's
 * own resource, which no log, summary or report holds: it is shown as "its Azure OpenAI resource".
 */
export function shownBaseUrl(upstream: Upstream): string {
  if (upstream.unset !== undefined) return 'no endpoint set';
  return upstream.provider === 'azure' ? 'its Azure OpenAI resource' : upstream.baseUrl;
}

/** `text` (a network error's message) with an Azure OpenAI resource's origin and host masked. */
export function withoutResourceHost(upstream: Upstream, text: string): string {
  if (upstream.provider !== 'azure' || upstream.unset !== undefined) return text;
  const url = new URL(upstream.baseUrl);
  let masked = text;
  for (const shown of [url.origin, url.host, url.hostname]) masked = masked.split(shown).join('<azure resource>');
  return masked;
}
