import {
  appendRunReport,
  describeEscape,
  describeThisProcess,
  installRunGuard,
  runEnvironment,
  runGuardInstalled,
  type Escape,
  type OutsideConnection,
  type ReportedTest,
} from '../guard/internal.js';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { TapeNotFoundError, describeExchange, type Exchange } from '../recordings/internal.js';
import { ModeltapeError, checkChoice, readFetchInput } from '../core/internal.js';
import { askedTurnOf } from '../fake-provider/internal.js';
import {
  BUILT_IN_UPSTREAMS,
  PROXY_MODES,
  isCi,
  loadConfig,
  cloudUpstreamOf,
  providerHosts,
  inProcessAnswerer,
  formatUnused,
  listeningUrl,
  openProxy,
  type ModeltapeConfig,
  type ProxyMode,
  type ProxyOptions,
  type ProxySummary,
  type RunningProxy,
} from '../proxy/internal.js';
import { buildDriftReport } from '../drift-report/internal.js';
import { EscapeGuard } from './escape-guard.js';
import { currentRunner, currentTest, currentTestFile, nodeTestFile, testCommandAdvice, testOfContext, type TestContextLike } from './test-context.js';

export interface OpenTapeOptions extends Omit<ProxyOptions, 'tape' | 'port' | 'host' | 'mode'> {
  /**
   * `replay` (the default), `record`, `auto` or `passthrough`. When not given, `MODELTAPE_MODE`
   * decides (so `MODELTAPE_MODE=auto npx vitest` records what is missing); recording is refused
   * where CI is set, as for the proxy.
   */
  mode?: ProxyMode;
  /** A config file to read, or `false` for none. @default modeltape.config.json in the working directory, if any */
  config?: string | false;
  /**
   * In replay mode, stop and count every request to a provider host that tries to leave the
   * machine (the session's close() then fails). @default true
   */
  guard?: boolean;
  /**
   * The test this session serves, for a runner that keeps no current test to read: under
   * node:test, the test's context (`openTape(tapeForCurrentTest({ test: t }), { test: t })`).
   * Every request the session answers is then that test's, for `modeltape mutate --selective`.
   * Vitest and Jest need none: each request is told the test running.
   */
  test?: TestContextLike;
}

/** What a session saw. */
export interface SessionSummary extends ProxySummary {
  /** Connections and requests to provider hosts that tried to leave the machine during a replay (stopped), by the guard or the proxy. */
  escapes: Escape[];
  /** Connections that left loopback for hosts that are not providers (let through, listed). */
  outside: OutsideConnection[];
}

/** A recorded exchange the session never used. */
export interface UnusedExchange {
  line: number | undefined;
  /** e.g. `POST /v1/chat/completions (openai)` */
  endpoint: string;
  ordinal: number;
  /**
   * The first line of the last user message it recorded (what tells the turns of a conversation
   * apart: they share a system prompt), else of its last message or system prompt, for recognising it.
   */
  prompt: string;
}

/**
 * A tape opened for a test: the official SDKs reach it through `session.fetch` (their `fetch`
 * option) or `session.baseUrls` (a proxy on port 0). Both are answered by the same proxy, so
 * every request is keyed, replayed, recorded and counted the same way; in replay mode
 * `session.fetch` is answered in process, with no socket, and the proxy listens only once a URL
 * of it is read (`session.baseUrls`, `session.proxy.url`, `.port`, `.baseUrls` or `.urlOf()`),
 * until `close()`.
 */
export interface TapeSession {
  readonly file: string;
  readonly mode: ProxyMode;
  /**
   * A `fetch` for the SDKs' `fetch` option. It sends requests for provider hosts
   * (`api.openai.com`, `api.anthropic.com`, …, and configured upstreams) to the session's proxy:
   * in replay mode in process (the proxy's decision, no socket), in the other modes over loopback.
   * After `close()` it rejects (`session_closed`).
   */
  readonly fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** `openai` for OPENAI_BASE_URL (`…/openai/v1`), `anthropic` for ANTHROPIC_BASE_URL, `gemini` for GOOGLE_GEMINI_BASE_URL, `ollama` for OLLAMA_HOST, `azure` for AZURE_OPENAI_ENDPOINT (`new AzureOpenAI({ endpoint })`), `bedrock` for AWS_ENDPOINT_URL_BEDROCK_RUNTIME (`new BedrockRuntimeClient({ endpoint })`), `vertex` for GOOGLE_VERTEX_BASE_URL (@google/genai's `httpOptions.baseUrl`; `AnthropicVertex` takes `${vertex}/v1`; see RunningProxy.baseUrls), `url` the proxy itself. In replay mode the first read makes the proxy listen. */
  readonly baseUrls: { openai: string; anthropic: string; gemini: string; ollama: string; azure: string; bedrock: string; vertex: string; url: string };
  /** The proxy behind the session. */
  readonly proxy: RunningProxy;
  /** The replay guard (active in replay mode unless `guard: false`). */
  readonly guard: EscapeGuard;
  summary(): SessionSummary;
  /** Recorded exchanges no request of this session used, in tape order. */
  unused(): UnusedExchange[];
  /**
   * Stops the proxy, flushes the tape, and reports. Throws {@link EscapeError} when a request to
   * a provider tried to leave the machine during a replay. With `{ prune: true }` in auto mode,
   * drops from the tape the exchanges this session never used (and logs which), if it was clean.
   * Call it in a `finally` (or an `afterEach`): a session never keeps the process alive, so a
   * test that fails before close() does not hang its runner, but only close() reports.
   */
  close(options?: { prune?: boolean }): Promise<SessionSummary>;
}

/** Requests to provider hosts left the machine's code during a replay (and were stopped). */
export class EscapeError extends ModeltapeError {
  readonly escapes: Escape[];

  constructor(file: string, escapes: Escape[]) {
    const lines = escapes.slice(0, 10).map((escape) => `  ${describeEscape(escape)}`);
    super(
      'request_escaped',
      `${escapes.length} request${escapes.length === 1 ? '' : 's'} to a provider tried to leave the machine while replaying ${file}, and ${escapes.length === 1 ? 'was' : 'were'} stopped:\n${lines.join('\n')}\n` +
        "Give the client the session's fetch (fetch: session.fetch) or base URL (session.baseUrls), or call interceptProviders(session) for clients you cannot configure.",
    );
    this.escapes = escapes;
  }
}

// The route of a request to a cloud provider's host that names the user's own resource, region or location.
function cloudRoute(url: URL): { name: string; basePath: string } | undefined {
  const name = url.protocol === 'https:' ? cloudUpstreamOf(url.hostname) : undefined;
  return name === undefined ? undefined : { name, basePath: '' };
}

// The hosts of the built-in upstreams, by name.
const BUILT_IN_HOSTS: ReadonlyMap<string, string> = new Map(Object.entries(BUILT_IN_UPSTREAMS).map(([name, { baseUrl }]) => [new URL(baseUrl).host, name]));

/**
 * Opens a tape for a test. Close the session when the test (or file) is done.
 *
 * Under `modeltape run` or `modeltape drift` (the command's environment names the run), the
 * session follows the run's mode, answers requests its clients send to the run's proxy (they
 * read `OPENAI_BASE_URL` while their `fetch` is the session's), reports what it saw to the run,
 * and under `drift` collects every drifted request instead of failing at the first.
 */
export async function openTape(file: string, options: OpenTapeOptions = {}): Promise<TapeSession> {
  const env = options.env ?? process.env;
  const run = runEnvironment(env);
  const mode = checkChoice('tape session mode', options.mode ?? (env.MODELTAPE_MODE || 'replay'), PROXY_MODES);
  // Under a replay run the whole process must stay on the machine: its guard is installed here
  // too (a process whose NODE_OPTIONS lost the preload), and no session may record.
  const underReplayRun = run.reportFile !== undefined && run.guardHosts.length > 0;
  if (underReplayRun) {
    installRunGuard(env);
    if (mode !== 'replay') {
      throw new ModeltapeError(
        'recording_in_replay_run',
        `openTape(${JSON.stringify(file)}) asks for mode ${mode} inside a replay run (modeltape run), which never calls a provider. Leave the mode out (sessions follow the run), or record with modeltape run --mode auto -- <the same command>.`,
      );
    }
  }
  const config: ModeltapeConfig = options.config === false ? {} : loadConfig(options.config).config;
  const { config: _config, guard: guardOption, test: openedFor, ...proxyOptions } = options;
  const advice = testCommandAdvice({ underRun: run.proxyUrl !== undefined, ci: isCi(env) });
  let proxy: RunningProxy;
  try {
    proxy = await openProxy(
      {
        ...proxyOptions,
        tape: file,
        mode,
        ...(run.onMiss !== undefined && options.onMiss === undefined ? { onMiss: run.onMiss } : {}),
        advice: {
          get record() {
            return advice.record;
          },
          repeat: "openTape(file, { repeat: 'last' })",
          ci: advice.ci,
        },
        ...(typeof options.config === 'string' ? { configFile: options.config } : {}),
        // A run's upstreams (its --upstream flags) reach its sessions, below the session's own.
        upstreams: { ...config.upstreams, ...run.upstreams, ...options.upstreams },
        ...((options.normalizers ?? config.normalizers) ? { normalizers: options.normalizers ?? config.normalizers } : {}),
        ...((options.keyHeaders ?? config.keyHeaders) ? { keyHeaders: options.keyHeaders ?? config.keyHeaders } : {}),
      },
      // A replay answers session.fetch in process: it listens only once a client is given its URL.
      { listen: mode === 'replay' ? 'when-asked' : 'at-start' },
    );
  } catch (error) {
    if (error instanceof TapeNotFoundError) throw new TapeNotFoundError(file, error, advice.recordTape);
    throw error;
  }

  // Which upstream a URL belongs to: configured upstreams by origin and base path (the longest
  // that matches, so two upstreams behind one gateway origin stay apart), then the built-in hosts.
  const routes: Array<{ origin: string; basePath: string; name: string }> = [];
  for (const upstream of proxy.options.upstreams.values()) routes.push({ origin: upstream.origin, basePath: upstream.basePath, name: upstream.name });
  for (const [host, name] of BUILT_IN_HOSTS) routes.push({ origin: `https://${host}`, basePath: '', name });
  routes.sort((a, b) => b.basePath.length - a.basePath.length);
  const routeOf = (url: URL): { name: string; basePath: string } | undefined =>
    routes.find(
      (route) => route.origin === url.origin && (route.basePath === '' || url.pathname === route.basePath || url.pathname.startsWith(`${route.basePath}/`)),
    ) ??
    // Any Azure OpenAI resource (`new AzureOpenAI({ endpoint: 'https://RESOURCE.openai.azure.com', fetch: session.fetch })`),
    // Bedrock Runtime in any region, Vertex AI in any location (`https://us-central1-aiplatform.googleapis.com`).
    cloudRoute(url);
  // The proxy's own URL (a client given session.baseUrls and session.fetch): none while it does not listen.
  let proxyOrigin: string | undefined;
  const ownOrigin = (): string | undefined => {
    if (proxyOrigin === undefined) {
      const url = listeningUrl(proxy);
      if (url !== undefined) proxyOrigin = new URL(url).origin;
    }
    return proxyOrigin;
  };
  // Under `modeltape run` a client reads OPENAI_BASE_URL, which names the run's proxy: a request
  // for it (`/<upstream>/…`) is this session's, when the client was given the session's fetch.
  const runOrigin = run.proxyUrl === undefined ? undefined : safeOrigin(run.proxyUrl);
  // Every upstream's host and port, the built-in provider hosts (session.fetch routes them even
  // when an upstream is overridden) and their side channels: in replay not one request to them is expected.
  const guard = new EscapeGuard(providerHosts(proxy.options.upstreams));
  if (mode === 'replay' && guardOption !== false) guard.start();

  // A replay is answered in process, by the proxy's own decision and counts, with no socket;
  // the other modes may forward, so they go through the proxy over loopback.
  const inProcess = inProcessAnswerer(proxy);
  // Under a run, which tests asked this session (for `modeltape mutate --selective`): the test it
  // was opened for, or each request told the test running when it came (see TestReaders).
  const readers = run.reportFile === undefined ? undefined : new TestReaders(env, openedFor);
  const sessionFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    readers?.note();
    // As fetch itself does: init, when given, overrides what the Request carries.
    const request = await readFetchInput(input, init);
    const { url } = request;
    // The request as the proxy takes it: `/<upstream>/<path>?<query>`.
    let proxyPath: string;
    if (url.origin === runOrigin || url.origin === ownOrigin()) {
      proxyPath = `${url.pathname}${url.search}`;
    } else {
      const upstream = routeOf(url);
      if (upstream === undefined) {
        throw new ModeltapeError(
          'unknown_provider_url',
          `session.fetch got a request for ${url.origin}${url.pathname}, which is none of the session's upstreams (${[...proxy.options.upstreams.keys()].join(', ')}). Add it with openTape(file, { upstreams: { name: "${url.origin}" } }).`,
        );
      }
      proxyPath = `/${upstream.name}${url.pathname.slice(upstream.basePath.length) || '/'}${url.search}`;
    }
    if (inProcess !== undefined) return inProcess(request, proxyPath);
    // Framing and connection headers belong to the hop the request came in on, not to this one.
    const headers = { ...request.headers };
    for (const name of ['content-length', 'host', 'connection', 'transfer-encoding', 'keep-alive']) delete headers[name];
    // The body is sent whole (the proxy keys on the complete bytes).
    return loopbackFetch(`${proxy.url}${proxyPath}`, {
      method: request.method,
      headers,
      body: request.body,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
  };

  const withGuard = (own: ProxySummary): SessionSummary => ({
    ...own,
    escapes: [...own.escapes, ...guard.escapes()],
    outside: [...own.outside, ...guard.outside()],
  });
  const summary = (): SessionSummary => withGuard(proxy.summary());
  // Under a run, the session tells the run what it saw: when it closes, or when its process
  // exits first (a test that failed before close()).
  const reportFile = run.reportFile;
  let reported = false;
  const report = (closed: boolean): void => {
    if (reportFile === undefined || reported) return;
    reported = true;
    const seen = summary();
    const drifts = seen.missErrors.length > 0 ? buildDriftReport(seen, []).drifts.map((drift) => ({ ...drift, tape: file })) : [];
    appendRunReport(reportFile, {
      kind: 'session',
      session: {
        tape: file,
        mode,
        process: describeThisProcess(),
        hits: seen.hits,
        misses: seen.misses,
        recorded: seen.recorded,
        replaced: seen.replaced,
        passthrough: seen.passthrough,
        refused: seen.refused,
        writeErrors: seen.writeErrors,
        upstreamErrors: seen.upstreamErrors,
        internalErrors: seen.internalErrors,
        upstreamConnections: seen.upstreamConnections,
        problems: seen.problems.slice(0, 5),
        drifts,
        closed,
        path: proxy.options.swappedFrom ?? realPath(file),
        used: proxy.engine?.usedLines() ?? [],
        ...(seen.unused === undefined ? {} : { recordings: seen.unused.total }),
        ...(readers === undefined ? {} : readers.tests(seen.hits + seen.misses + seen.recorded + seen.passthrough)),
      },
    });
    // The run's own guard, when this process has it, has reported each escape already.
    if (!runGuardInstalled())
      for (const escape of guard.escapes()) appendRunReport(reportFile, { kind: 'escape', escape: { ...escape, process: describeThisProcess() } });
  };
  const onExit = (): void => report(false);
  if (reportFile !== undefined) process.once('exit', onExit);
  let closed: Promise<SessionSummary> | undefined;
  let baseUrls: TapeSession['baseUrls'] | undefined;
  return {
    file,
    mode,
    fetch: sessionFetch,
    // Read, the proxy listens (until close()); a session whose clients all take session.fetch never does.
    get baseUrls() {
      baseUrls ??= { ...proxy.baseUrls, url: proxy.url };
      return baseUrls;
    },
    proxy,
    guard,
    summary,
    unused: () => (proxy.engine?.unused() ?? []).map((entry) => unusedExchange(entry.exchange, entry.line)),
    close: (closeOptions = {}) => {
      closed ??= (async () => {
        // What the proxy saw when it closed: nothing answers after, so it is its summary from now on.
        const own = await proxy.close(closeOptions.prune === undefined ? {} : { prune: closeOptions.prune });
        guard.stop();
        process.off('exit', onExit);
        report(true);
        const result = withGuard(own);
        // A run prints what its sessions left unused, together; a session on its own says it here.
        if (reportFile === undefined && mode === 'replay' && result.unused !== undefined)
          for (const line of formatUnused(file, result.unused, mode)) proxy.options.log(`modeltape: tape session:${line.slice(1)}`);
        if (result.escapes.length > 0) throw new EscapeError(file, result.escapes);
        return result;
      })();
      return closed;
    },
  };
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

// The session talks to its own proxy on loopback with the fetch the process started with, so
// interceptProviders (which patches the global fetch) never sees these requests.
const loopbackFetch: typeof fetch = globalThis.fetch.bind(globalThis);

/** How a recorded exchange reads in a table: endpoint, ordinal, and the first line of its prompt. */
export function unusedExchange(exchange: Exchange, line: number | undefined): UnusedExchange {
  const body = exchange.request.body !== undefined && 'json' in exchange.request.body ? exchange.request.body.json : undefined;
  const turn = askedTurnOf(exchange.request.path, body);
  const told = turn?.messages.findLast((message) => message.role === 'user' && message.text.trim() !== '') ?? turn?.messages.at(-1);
  const text = told?.text ?? turn?.system ?? '';
  return { line, endpoint: describeExchange(exchange), ordinal: exchange.ordinal, prompt: text.trim().split('\n', 1)[0] ?? '' };
}

// The real path of a tape, as `modeltape mutate` names it; the resolved path when it is not there.
function realPath(file: string): string {
  try {
    return realpathSync(resolve(file));
  } catch {
    return resolve(file);
  }
}

// The tests a session's requests came in, as far as they are known. A session opened for a test
// (`{ test: t }`) answers that test's requests, by whatever route; one in a node:test file's own
// process answers that file's. Otherwise each request through its fetch is told the Vitest or Jest
// test running (or, around tests, its file). A request from where no test file is known, or one
// the session answered that never came through its fetch (a client given its baseUrls), makes it unknown.
class TestReaders {
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #tests = new Map<string, ReportedTest>();
  // Every request's reader, when known without asking: the test the session was opened for, or the node:test file of this process.
  readonly #all: ReportedTest | undefined;
  #asked = 0;
  #unknown = false;

  constructor(env: Readonly<Record<string, string | undefined>>, test: TestContextLike | undefined) {
    this.#env = env;
    const runner = currentRunner(env);
    const opened = test === undefined ? undefined : testOfContext(test);
    if (opened !== undefined) {
      this.#all = {
        runner: runner ?? 'node:test',
        file: opened.file,
        name: opened.name,
        ...(runner === 'vitest' || runner === 'jest' ? {} : { leaf: test!.name }),
      };
      return;
    }
    const file = runner === 'node:test' ? nodeTestFile(env) : undefined;
    if (file !== undefined) this.#all = { runner: 'node:test', file };
  }

  note(): void {
    this.#asked++;
    if (this.#unknown || this.#all !== undefined) return;
    const runner = currentRunner(this.#env);
    if (runner !== 'vitest' && runner !== 'jest') {
      this.#unknown = true;
      return;
    }
    const test = currentTest();
    const file = test?.file ?? currentTestFile();
    if (file === undefined) {
      this.#unknown = true;
      return;
    }
    this.#tests.set(`${file}\u0000${test?.name ?? ''}`, { runner, file, ...(test === undefined ? {} : { name: test.name }) });
  }

  /** `{ tests }` for the session's report, or nothing when they are not known; `answered` is what the session answered in all. */
  tests(answered: number): { tests?: ReportedTest[] } {
    if (this.#all !== undefined) return { tests: answered === 0 ? [] : [this.#all] };
    return this.#unknown || answered > this.#asked ? {} : { tests: [...this.#tests.values()] };
  }
}
