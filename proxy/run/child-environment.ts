import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GUARD_PRELOAD_URL, RUN_VARIABLES } from '../../guard/internal.js';
import { AZURE_IDENTITY_PATH } from '../core/azure-identity.js';
import { REPLAY_PLACEHOLDER_KEY } from '../core/placeholder-key.js';
import type { ProxyMode } from '../core/proxy-options.js';

/**
 * The variables clients read for where a provider is, by provider: every name a client in
 * common use reads instead of (or before) the official one points at the run's proxy too, so a
 * client built with defaults reaches it whatever it reads. Keys of the proxy's base URLs.
 */
export const BASE_URL_VARIABLES: Readonly<Record<string, { base: (url: string) => string; names: readonly string[] }>> = {
  openai: {
    base: (url) => `${url}/openai/v1`,
    // OPENAI_BASE_URL: the official SDKs (Node, Python), Vercel ai, the Agents SDK, LlamaIndex.
    // OPENAI_API_BASE: LangChain JS reads it before OPENAI_BASE_URL; Python's openai<1 and litellm.
    // OPENAI_BASE: older wrappers.
    names: ['OPENAI_BASE_URL', 'OPENAI_API_BASE', 'OPENAI_BASE'],
  },
  anthropic: {
    base: (url) => `${url}/anthropic`,
    // ANTHROPIC_BASE_URL: @anthropic-ai/sdk, @ai-sdk/anthropic, the Python SDK.
    // ANTHROPIC_API_URL: LangChain's ChatAnthropic. ANTHROPIC_API_BASE: litellm.
    names: ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_URL', 'ANTHROPIC_API_BASE'],
  },
  gemini: {
    base: (url) => `${url}/gemini`,
    // @google/genai (its Gemini API, not Vertex) reads GOOGLE_GEMINI_BASE_URL when no
    // httpOptions.baseUrl is given; @ai-sdk/google reads no base-URL variable (give it baseURL).
    names: ['GOOGLE_GEMINI_BASE_URL'],
  },
  azure: {
    base: (url) => `${url}/azure`,
    // AZURE_OPENAI_ENDPOINT: `AzureOpenAI` (openai), which appends `/openai`, and reads it only
    // when OPENAI_BASE_URL is unset (this run sets that too: see routeRequest for both routes).
    names: ['AZURE_OPENAI_ENDPOINT'],
  },
  bedrock: {
    base: (url) => `${url}/bedrock`,
    // AWS_ENDPOINT_URL_BEDROCK_RUNTIME: the AWS SDKs' service-specific endpoint (JS v3, boto3,
    // the CLI), which wins over AWS_ENDPOINT_URL; LangChain's ChatBedrockConverse (@langchain/aws
    // 1.4.5) builds on the JS SDK's client, and @ai-sdk/amazon-bedrock (3.0.137) reads it itself.
    // ANTHROPIC_BEDROCK_BASE_URL: @anthropic-ai/bedrock-sdk (1.2.1), which reads no AWS variable
    // and appends `/model/{modelId}/invoke` to the base's path.
    names: ['AWS_ENDPOINT_URL_BEDROCK_RUNTIME', 'ANTHROPIC_BEDROCK_BASE_URL'],
  },
  vertex: {
    base: (url) => `${url}/vertex`,
    // GOOGLE_VERTEX_BASE_URL: @google/genai (2.32) with `vertexai: true`, when no
    // httpOptions.baseUrl is given; it appends `/v1beta1/projects/{p}/locations/{l}/…`.
    // @ai-sdk/google-vertex (3.0.187) reads no base-URL variable: give it baseURL (docs/vertex.md).
    names: ['GOOGLE_VERTEX_BASE_URL'],
  },
  vertexAnthropic: {
    base: (url) => `${url}/vertex/v1`,
    // ANTHROPIC_VERTEX_BASE_URL: @anthropic-ai/vertex-sdk (1.1.5), which appends
    // `/projects/{p}/locations/{region}/publishers/anthropic/models/{model}:rawPredict`.
    names: ['ANTHROPIC_VERTEX_BASE_URL'],
  },
  groq: {
    base: (url) => `${url}/groq`,
    // GROQ_BASE_URL: groq-sdk (1.6), which appends `/openai/v1/…`. @ai-sdk/groq reads no variable.
    names: ['GROQ_BASE_URL'],
  },
  together: {
    base: (url) => `${url}/together/v1`,
    // TOGETHER_BASE_URL: together-ai (0.52), which appends `/chat/completions`. @ai-sdk/togetherai reads no variable.
    names: ['TOGETHER_BASE_URL'],
  },
  ollama: {
    base: (url) => `${url}/ollama`,
    // OLLAMA_HOST: the Ollama CLI and the Python `ollama` client. The `ollama` npm package
    // (0.6.4) and ollama-ai-provider-v2 read no variable: pass it as their `host` / `baseURL`.
    names: ['OLLAMA_HOST'],
  },
};

/**
 * Placeholder AWS credentials, so that an AWS SDK client signs offline: the proxy never checks a
 * client's signature, and signs what it forwards again with its own environment's credentials.
 * They come first in the SDK's chain (the environment), so no profile, SSO cache, web identity
 * or instance role is read: `AWS_PROFILE` (which makes the chain skip the environment) and
 * `AWS_SESSION_TOKEN` go, the instance metadata service is turned off, and a region is set under
 * both its names when either is missing (clients need one; the endpoint is the proxy's whatever it is).
 */
function withPlaceholderAwsCredentials(env: NodeJS.ProcessEnv): void {
  env.AWS_ACCESS_KEY_ID = REPLAY_PLACEHOLDER_KEY;
  env.AWS_SECRET_ACCESS_KEY = REPLAY_PLACEHOLDER_KEY;
  delete env.AWS_SESSION_TOKEN;
  delete env.AWS_SECURITY_TOKEN;
  delete env.AWS_PROFILE;
  delete env.AWS_DEFAULT_PROFILE;
  env.AWS_EC2_METADATA_DISABLED = 'true';
  // Both names: the AWS SDK and most clients read AWS_REGION, but LangChain's ChatBedrockConverse
  // (@langchain/aws 1.4.5) reads only AWS_DEFAULT_REGION, and refuses to start without it.
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
  env.AWS_REGION ||= region;
  env.AWS_DEFAULT_REGION ||= region;
}

/**
 * Whether the environment holds Google credentials of the user's own: a credentials file named by
 * `GOOGLE_APPLICATION_CREDENTIALS`, or the application default credentials `gcloud auth
 * application-default login` writes (`$CLOUDSDK_CONFIG`, else `~/.config/gcloud`, or
 * `%APPDATA%\gcloud` on Windows), where google-auth-library looks for them.
 */
export function hasGoogleCredentials(env: NodeJS.ProcessEnv): boolean {
  if (env.GOOGLE_APPLICATION_CREDENTIALS || env.google_application_credentials) return true;
  const folder =
    env.CLOUDSDK_CONFIG || (process.platform === 'win32' ? env.APPDATA && join(env.APPDATA, 'gcloud') : env.HOME && join(env.HOME, '.config', 'gcloud'));
  return typeof folder === 'string' && folder !== '' && existsSync(join(folder, 'application_default_credentials.json'));
}

/**
 * Placeholder Google credentials (the file `googleCredentials` names, written by the caller; see
 * placeholderGoogleCredentials), so that Google's auth libraries get an access token from the
 * proxy, offline: they read `GOOGLE_APPLICATION_CREDENTIALS` first, before the well-known file
 * and the metadata server, and the metadata server is turned off and pointed at the proxy too, so
 * a cloud VM's service account is never asked (a client that looks for it anyway gets the
 * proxy's 404).
 */
function withPlaceholderGoogleCredentials(env: NodeJS.ProcessEnv, file: string, url: string): void {
  env.GOOGLE_APPLICATION_CREDENTIALS = file;
  delete env.google_application_credentials;
  env.METADATA_SERVER_DETECTION = 'none';
  const host = new URL(url).host;
  env.GCE_METADATA_HOST = host;
  env.GCE_METADATA_IP = host;
}

/**
 * Entra ID without Entra, for `@azure/identity` in replay: `DefaultAzureCredential` is set to use
 * `ManagedIdentityCredential` alone (`AZURE_TOKEN_CREDENTIALS`, which wins over a developer's
 * `dev` and over the environment's client secret or certificate, which would go to
 * login.microsoftonline.com), and the managed identity found is App Service's, at the proxy
 * (`IDENTITY_ENDPOINT`, `IDENTITY_HEADER`, plain HTTP on loopback, as App Service's is). What
 * would win over App Service in MSAL's order, or send the identity elsewhere, goes: Service
 * Fabric's thumbprint, Azure ML's and Cloud Shell's `MSI_ENDPOINT` / `MSI_SECRET`, Azure Arc's
 * `IMDS_ENDPOINT`, and `AZURE_FEDERATED_TOKEN_FILE` (workload identity trades it at Entra).
 */
function withStandInAzureIdentity(env: NodeJS.ProcessEnv, url: string): void {
  env.AZURE_TOKEN_CREDENTIALS = 'ManagedIdentityCredential';
  env.IDENTITY_ENDPOINT = `${url}${AZURE_IDENTITY_PATH}`;
  env.IDENTITY_HEADER = REPLAY_PLACEHOLDER_KEY;
  for (const name of ['IDENTITY_SERVER_THUMBPRINT', 'MSI_ENDPOINT', 'MSI_SECRET', 'IMDS_ENDPOINT', 'AZURE_FEDERATED_TOKEN_FILE']) delete env[name];
}

/** Loopback, as NO_PROXY lists it: clients reach the proxy itself directly. */
const NO_PROXY = 'localhost,127.0.0.1,::1,[::1]';

/**
 * The environment `run` and `drift` give the command. Every mode: the base-URL variables,
 * `MODELTAPE_URL`, `MODELTAPE_MODE` (sessions opened inside follow the run) and the report file.
 * Replay adds the offline guarantee for the whole process tree: the guard's preload in
 * `NODE_OPTIONS` (before what the user has), the provider hosts it refuses, `HTTPS_PROXY` /
 * `HTTP_PROXY` / `ALL_PROXY` pointing at the proxy (which refuses every host off loopback) for
 * clients in other languages, `NO_PROXY` for loopback, and placeholder keys where none is set.
 */
export function childEnvironment(
  base: NodeJS.ProcessEnv,
  run: {
    url: string;
    mode: ProxyMode;
    reportFile: string;
    guardHosts: readonly string[];
    onMiss?: 'nearest';
    /** The upstreams the run was given (`--upstream`, the config file): sessions inside forward to them too. */
    upstreams?: Readonly<Record<string, string>>;
    /**
     * A file holding placeholderGoogleCredentials(url), written by the caller: given to the
     * command in replay, and in auto when it has no Google credentials of its own.
     */
    googleCredentials?: string;
  },
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const { base: baseOf, names } of Object.values(BASE_URL_VARIABLES)) for (const name of names) env[name] = baseOf(run.url);
  env[RUN_VARIABLES.url] = run.url;
  env[RUN_VARIABLES.mode] = run.mode;
  env[RUN_VARIABLES.report] = run.reportFile;
  if (run.onMiss) env[RUN_VARIABLES.onMiss] = run.onMiss;
  else delete env[RUN_VARIABLES.onMiss];
  if (run.upstreams !== undefined && Object.keys(run.upstreams).length > 0) env[RUN_VARIABLES.upstreams] = JSON.stringify(run.upstreams);
  else delete env[RUN_VARIABLES.upstreams];
  if (run.mode === 'replay' || run.mode === 'auto') {
    // Auto replays what it can without a key; a miss that needs one says so (see the proxy).
    env.OPENAI_API_KEY ||= REPLAY_PLACEHOLDER_KEY;
    env.ANTHROPIC_API_KEY ||= REPLAY_PLACEHOLDER_KEY;
    // AzureOpenAI refuses to start without a key (or an Entra token provider), and with both:
    // a variable set empty says the code uses Entra ID, and stays empty.
    if (env.AZURE_OPENAI_API_KEY === undefined) env.AZURE_OPENAI_API_KEY = REPLAY_PLACEHOLDER_KEY;
    // @ai-sdk/azure reads its own, at the first request (a tokenProvider takes its place).
    env.AZURE_API_KEY ||= REPLAY_PLACEHOLDER_KEY;
    // @google/genai reads GOOGLE_API_KEY before GEMINI_API_KEY; either set is the user's.
    if (!env.GOOGLE_API_KEY) env.GEMINI_API_KEY ||= REPLAY_PLACEHOLDER_KEY;
    // @ai-sdk/google reads its own variable, and throws at the first request when it is unset.
    env.GOOGLE_GENERATIVE_AI_API_KEY ||= REPLAY_PLACEHOLDER_KEY;
    // groq-sdk and together-ai refuse to build a client without theirs.
    env.GROQ_API_KEY ||= REPLAY_PLACEHOLDER_KEY;
    env.TOGETHER_API_KEY ||= REPLAY_PLACEHOLDER_KEY;
  }
  // With it set, the AWS SDKs ignore every endpoint variable, this run's too.
  delete env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS;
  if (run.mode === 'replay') withPlaceholderAwsCredentials(env);
  if (run.mode === 'replay') withStandInAzureIdentity(env, run.url);
  else if (run.mode === 'auto' && !env.AWS_ACCESS_KEY_ID && !env.AWS_PROFILE) withPlaceholderAwsCredentials(env);
  if (run.googleCredentials !== undefined && (run.mode === 'replay' || (run.mode === 'auto' && !hasGoogleCredentials(env))))
    withPlaceholderGoogleCredentials(env, run.googleCredentials, run.url);
  if (run.mode !== 'replay') {
    delete env[RUN_VARIABLES.guardHosts];
    return env;
  }
  // The Agents SDK exports traces to api.openai.com whatever the base URL; a replay's traces
  // would describe replayed calls. Off unless the user says otherwise (the guard still stops it).
  env.OPENAI_AGENTS_DISABLE_TRACING ??= '1';
  env[RUN_VARIABLES.guardHosts] = run.guardHosts.join(',');
  // First, so that the user's own --import preloads (a tracing hook) load after the guard.
  const preload = `--import=${GUARD_PRELOAD_URL}`;
  const existing = base.NODE_OPTIONS ?? '';
  env.NODE_OPTIONS = existing.includes(preload) ? existing : `${preload}${existing === '' ? '' : ' '}${existing}`;
  for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy']) env[name] = run.url;
  env.NO_PROXY = NO_PROXY;
  env.no_proxy = NO_PROXY;
  return env;
}
