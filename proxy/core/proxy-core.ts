// The proxy without its sockets: the run's options, its engine and recorder, what it counts, and
// the one decision path (decide-request.ts) turned into answers. The HTTP server (proxy-server.ts)
// and the in-process path (in-process-answer.ts: `session.fetch`, `FakeProvider.fromTape`) both
// answer through it, so a request is keyed, counted and explained the same way whichever reached it.
import {
  TapeNotFoundError,
  TapeWriter,
  compileKeyRules,
  redactPathQuery,
  type CompiledKeyRules,
  type Exchange,
  type TapeWriteFailure,
} from '../../recordings/internal.js';
import { displayPath, maskSecrets } from '../../core/internal.js';
import {
  errorBody,
  isJsonRpcMessage,
  jsonRpcIdOf,
  errorHeaders,
  mcpErrorBody,
  modeltapeErrorBody,
  transientFailure,
  type JsonRpcId,
  type TransientFailure,
} from '../../providers/internal.js';
import { renumberPrepared } from './mcp-answer.js';
import { ChaosPlan, type ChaosFault, type ChaosKind, type ResolvedChaos } from './chaos.js';
import type { Escape, OutsideConnection } from '../../guard/internal.js';
import { ReplayEngine, ciRecordAdvice, prepareResponse, type PreparedResponse, type ReplayMissError } from '../../lookup/internal.js';
import type { ForwardDecision, HitDecision, MissDecision, RefuseDecision, DecisionContext } from './decide-request.js';
import { pruneTape } from './prune-tape.js';
import { TAPE_FILE_SYSTEM, resolveProxyOptions, type Pace, type ProxyMode, type ProxyOptions, type ResolvedProxyOptions } from './proxy-options.js';
import { RequestKeys } from './request-keys.js';
import { ExchangeRecorder } from './response-recording.js';
import { buildUpstreamTable, type Provider, type Upstream } from './upstream-table.js';

/** What a proxy did, for its summary and for assertions. */
export interface ProxySummary {
  tape: string;
  mode: ProxyMode;
  /** Requests answered from the tape. */
  hits: number;
  /** Requests the tape could not answer (in replay mode: each was an error response). */
  misses: number;
  /** Exchanges recorded to the tape (new ones and re-recordings). */
  recorded: number;
  /** Of the exchanges recorded, those that replaced a recording of the same request the tape held (record mode). */
  replaced: number;
  /** Requests forwarded without being written (passthrough mode). */
  passthrough: number;
  /**
   * Requests and exchanges refused: not written because they held something shaped like a
   * credential or could not be recorded faithfully (a response over the size limit, a stream cut
   * before its terminating event, a body that does not decode), or not answered at all (a request
   * body over the size limit, a path that would leave its upstream's base).
   */
  refused: number;
  /**
   * Exchanges answered to the client but lost to a failed write (a full disk, an I/O error, a
   * read-only tape): not on the tape, which holds no part of them. Fails the run.
   */
  writeErrors: number;
  /** Requests whose upstream failed (unreachable, reset) before or during the response. */
  upstreamErrors: number;
  /**
   * Requests modeltape itself failed on (a recorded answer Node cannot send, such as a header
   * value holding a line break; or a bug): each got a 500. Fails the run.
   */
  internalErrors: number;
  /** Requests the client abandoned before the response ended (not recorded). */
  aborted: number;
  /**
   * Requests whose first path segment names no upstream of the run (answered 404, naming the
   * configured ones and where to declare it). Fails the run. Absent in summaries before 0.3.
   */
  unrouted?: number;
  /** TCP connections opened to any upstream. Always 0 in replay mode. */
  upstreamConnections: number;
  /** The messages of the first misses and refusals, in order. */
  problems: string[];
  /** Every miss, explained (request, key, nearest recording, differences), in order; at most 1,000 kept. */
  missErrors: ReplayMissError[];
  /** Exchanges dropped from the tape by `prune`. */
  pruned: number;
  /**
   * Requests to a provider host that tried to go around the tape: `CONNECT` or absolute-form
   * requests sent to this proxy as a forward proxy (`HTTPS_PROXY`), refused before any
   * connection was made. A `run` adds those its processes' guards stopped.
   */
  escapes: Escape[];
  /** Refused forward-proxy requests to hosts that are neither loopback nor providers. */
  outside: OutsideConnection[];
  /** Chaos replay only: the seed, and every fault planned on the tape with whether a request met it. */
  chaos?: ChaosSummary;
  /**
   * Replay and auto mode: how many of the recordings the tape held when the run began no request
   * used, of how many, and the tape lines of the first few. Not a failure by itself; the strict
   * assertions (`assertReplayedStrictly`) fail on it.
   */
  unused?: UnusedRecordings;
}

/** Recordings a run left unused (see {@link ProxySummary.unused}). */
export interface UnusedRecordings {
  count: number;
  /** How many recordings the tape held when the run began. */
  total: number;
  /** The tape lines of the first unused recordings, at most 5. */
  lines: number[];
}

/** What a chaos replay planned and injected. */
export interface ChaosSummary {
  seed: string;
  rate: number;
  kinds: ChaosKind[];
  faults: ChaosFault[];
}

/** What a proxy counted: its summary without what only its sockets know. */
export type ProxyCounts = Omit<ProxySummary, 'tape' | 'mode' | 'upstreamConnections' | 'outside' | 'chaos' | 'unused'>;

/** A recorded response to send: a hit, or the nearest recording when drift is collected. */
export interface RecordedAnswer {
  kind: 'recorded';
  prepared: PreparedResponse;
  pace: Pace;
}

/** An error in the provider's own shape (see `modeltapeErrorBody`), its type also sent as `x-modeltape-error`. */
export interface ErrorAnswer {
  kind: 'error';
  provider: Provider;
  status: number;
  type: string;
  message: string;
  /** On an MCP route, the JSON-RPC request's id (see {@link errorReply}). */
  rpcId?: JsonRpcId;
}

// The JSON-RPC id of the request a miss answers, if it has one.
function rpcIdAsked(decision: MissDecision): JsonRpcId | undefined {
  return 'nearest' in decision.response ? decision.rpcId : decision.response.rpcId;
}

/** A chaos fault instead of a recorded answer, and what it does to the connection. */
export interface FaultAnswer {
  kind: 'fault';
  fault: ChaosFault;
  effect:
    | { kind: 'reply'; status: number; headers: Record<string, string>; body: string }
    | { kind: 'drop' }
    /**
     * The recorded status and headers and the first `afterFrames` frames of its stream (0: none,
     * and none of a plain body), then the connection drops.
     */
    | { kind: 'cut'; prepared: PreparedResponse; afterFrames: number }
    /** Nothing at all, until the client gives up (or the proxy closes). */
    | { kind: 'stall' };
}

/** What the proxy answers by itself, without an upstream. */
export type OwnAnswer = RecordedAnswer | ErrorAnswer | FaultAnswer;

/**
 * The status, headers and body of an error answer, as the proxy sends it over either path. On an
 * MCP route, a request's error is a JSON-RPC error under its id, with status 200 as a server
 * answers a call it cannot serve: the client raises it as `McpError` with the message.
 */
export function errorReply(answer: ErrorAnswer, retry: boolean): { status: number; headers: Record<string, string>; body: string } {
  const rpc = answer.provider === 'mcp';
  // Every error the proxy answers a client with, on every transport: an upstream's words it quotes
  // may hold the key the client sent (a 401 naming it).
  const message = maskSecrets(answer.message);
  const body = JSON.stringify(
    rpc
      ? mcpErrorBody({ status: answer.status, type: answer.type, message, fromModeltape: true }, answer.rpcId ?? null)
      : modeltapeErrorBody(answer.provider, answer.status, answer.type, message),
  );
  return {
    status: rpc && answer.rpcId !== undefined ? 200 : answer.status,
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'x-should-retry': String(retry),
      'x-modeltape-error': answer.type,
      ...errorHeaders(answer.provider, answer.type),
    },
    body,
  };
}

const MAX_PROBLEMS_KEPT = 20;
const MAX_MISSES_KEPT = 1000;

/**
 * One run of the proxy without its sockets. {@link ProxyCore.open} reads the tape; the callers
 * decide (decide-request.ts) and turn each decision into an answer with {@link ProxyCore.answer},
 * which counts it.
 */
export class ProxyCore {
  readonly options: ResolvedProxyOptions;
  /** The replay engine; undefined only in passthrough mode. */
  readonly engine: ReplayEngine | undefined;
  readonly keys: RequestKeys;
  /** Appends recorded exchanges (record and auto modes). */
  readonly recorder: ExchangeRecorder | undefined;
  readonly context: DecisionContext;
  readonly counts: ProxyCounts = {
    escapes: [],
    missErrors: [],
    pruned: 0,
    hits: 0,
    misses: 0,
    recorded: 0,
    replaced: 0,
    passthrough: 0,
    refused: 0,
    writeErrors: 0,
    upstreamErrors: 0,
    internalErrors: 0,
    aborted: 0,
    unrouted: 0,
    problems: [],
  };
  readonly #prepared = new WeakMap<Exchange, PreparedResponse>();
  readonly #replayedMcpSessions = new Set<string>();
  /** Chaos replay's faults, planned on the tape as it opened. */
  readonly chaos: ChaosPlan | undefined;

  private constructor(resolved: ResolvedProxyOptions, upstreamsFromTape: boolean) {
    const { engine, keyRules } = openEngine(resolved, (message) => resolved.log(maskSecrets(message)));
    // A replay never forwards, so every upstream its tape names is routed, configured or not (an
    // MCP server recorded with --upstream docs=mcp+… replays with no flag).
    const fromTape = upstreamsFromTape || resolved.mode === 'replay';
    const options = fromTape && engine !== undefined ? { ...resolved, upstreams: withTapeUpstreams(resolved.upstreams, engine) } : resolved;
    this.options = options;
    this.engine = engine;
    this.keys = new RequestKeys(keyRules);
    this.context = { options, engine, keys: this.keys, replayedMcpSessions: this.#replayedMcpSessions };
    this.chaos =
      options.chaos !== undefined && engine !== undefined
        ? new ChaosPlan(options.chaos, engine, (entry) => this.prepared(entry.exchange).frames?.length ?? 0)
        : undefined;
    const { mode } = options;
    this.recorder =
      mode === 'record' || mode === 'auto'
        ? new ExchangeRecorder({
            mode,
            rerecord: options.append ? 'append' : 'replace',
            engine: engine!,
            keys: this.keys,
            now: options.now,
            writer: TapeWriter.open(options.tape, {
              keyRules,
              headerNotes: options.tapeNotes,
              // A run whose every recording is refused (a key in each) leaves no header-only tape.
              createOnFirstWrite: true,
              onWriteError: (failure: TapeWriteFailure) => {
                this.counts.recorded -= failure.exchanges.length;
                this.counts.writeErrors += failure.exchanges.length;
                this.problem(failure.error.message);
              },
              onReplaceError: (error) => {
                // On the tape, but not in place: the run fails, saying how to finish it.
                this.counts.writeErrors++;
                this.problem(error.message);
              },
              ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
              ...(options.tapeFileSystem === undefined ? {} : { [TAPE_FILE_SYSTEM]: options.tapeFileSystem }),
            }),
            onRecorded: (replacing) => {
              this.counts.recorded++;
              if (replacing) this.counts.replaced++;
            },
            onRefused: (message) => {
              this.counts.refused++;
              this.problem(message);
            },
          })
        : undefined;
  }

  /**
   * Resolves the options and opens the tape (read once; created empty where a mode may). With
   * `upstreamsFromTape`, every upstream the tape names is routed, as `FakeProvider.fromTape`
   * needs: a name the options do not configure gets a base URL nothing reaches (`<name>.tape.invalid`).
   */
  static open(options: ProxyOptions, how: { upstreamsFromTape?: boolean } = {}): ProxyCore {
    return new ProxyCore(resolveProxyOptions(options), how.upstreamsFromTape === true);
  }

  get mode(): ProxyMode {
    return this.options.mode;
  }

  /** Logs a line, masked: every line the proxy logs (and so every problem in its summary) is masked here, once. */
  log(message: string): void {
    this.options.log(maskSecrets(message));
  }

  /** Keeps a problem for the summary (the first 20) and logs it. */
  problem(message: string): void {
    const masked = maskSecrets(message);
    if (this.counts.problems.length < MAX_PROBLEMS_KEPT) this.counts.problems.push(masked);
    this.options.log(`modeltape: ${masked}`);
  }

  /** The decision's answer, counted: a hit, a miss, or a refusal. */
  answer(decision: HitDecision | MissDecision | RefuseDecision): OwnAnswer {
    const counts = this.counts;
    if (decision.kind === 'hit') {
      const fault = this.chaos?.take(decision.entry);
      if (fault !== undefined) {
        // The fault answers instead: the recording stays for the retry.
        this.engine!.giveBack(decision.key, decision.entry);
        return { kind: 'fault', fault, effect: this.#faultEffect(decision, fault) };
      }
      counts.hits++;
      if (decision.route.upstream.provider === 'mcp') {
        const session = decision.exchange.response.headers['mcp-session-id'];
        if (typeof session === 'string') this.#replayedMcpSessions.add(session);
      }
      return { kind: 'recorded', prepared: this.#answering(decision.exchange, decision.rpcId), pace: this.options.pace };
    }
    if (decision.kind === 'miss') {
      counts.misses++;
      if (decision.missError !== undefined && counts.missErrors.length < MAX_MISSES_KEPT) counts.missErrors.push(decision.missError);
      this.problem(decision.message);
      // Drift collection: answer as the nearest recording did, so the run reaches its next request.
      if ('nearest' in decision.response)
        return { kind: 'recorded', prepared: this.#answering(decision.response.nearest, rpcIdAsked(decision)), pace: 'instant' };
      return { kind: 'error', ...decision.response, message: decision.message };
    }
    // An unknown upstream is not among the refusals a summary counts (see ProxySummary.refused): it
    // is counted apart, its 404 naming the configured upstreams. Nor is an MCP client's GET for a
    // server stream, which it opens on its own and goes on without.
    if (decision.reason === 'unknown_upstream') {
      counts.unrouted = (counts.unrouted ?? 0) + 1;
      this.problem(decision.message);
    } else if (decision.reason !== 'no_server_stream') {
      counts.refused++;
      this.problem(decision.message);
    }
    return { kind: 'error', ...decision.response, message: decision.message };
  }

  #faultEffect(decision: HitDecision, fault: ChaosFault): FaultAnswer['effect'] {
    if (fault.kind === 'drop-connection') return { kind: 'drop' };
    if (fault.kind === 'stream-cut') return { kind: 'cut', prepared: this.prepared(decision.exchange), afterFrames: fault.afterFrames! };
    if (fault.kind === 'drop-after-headers') return { kind: 'cut', prepared: this.prepared(decision.exchange), afterFrames: 0 };
    if (fault.kind === 'stall') return { kind: 'stall' };
    return { kind: 'reply', ...faultReply(decision.route.upstream.provider, fault.kind, this.chaos!.chaos) };
  }

  /**
   * The run's summary: what it counted, copied (later requests change none of it), with what only
   * its transport knows: the connections it opened upstream and the hosts off this machine it refused.
   */
  summary(transport: { upstreamConnections: number; outside: OutsideConnection[] }): ProxySummary {
    const counts = this.counts;
    return {
      tape: this.options.tape,
      mode: this.mode,
      ...counts,
      problems: [...counts.problems],
      missErrors: [...counts.missErrors],
      escapes: [...counts.escapes],
      outside: transport.outside,
      upstreamConnections: transport.upstreamConnections,
      ...(this.chaos === undefined ? {} : { chaos: this.chaosSummary()! }),
    };
  }

  /** The recordings no request used, for the summary: replay and auto mode only. */
  unusedSummary(): UnusedRecordings | undefined {
    if (this.engine === undefined || (this.mode !== 'replay' && this.mode !== 'auto')) return undefined;
    return this.engine.unusedCount();
  }

  /** Chaos replay's seed and faults, for the summary; undefined without chaos. */
  chaosSummary(): ChaosSummary | undefined {
    if (this.chaos === undefined) return undefined;
    const { seed, rate, kinds } = this.chaos.chaos;
    return { seed, rate, kinds: [...kinds], faults: this.chaos.faults() };
  }

  /** A forward that is not recorded for a reason the summary tells (a body too deep to key). */
  noteUnrecorded(decision: ForwardDecision): void {
    if (decision.unrecorded === undefined) return;
    this.counts.refused++;
    this.problem(decision.unrecorded);
  }

  /** modeltape itself failed on a request (a recorded answer that cannot be sent, or a bug): counted, and the 500 to answer. */
  internalError(provider: Provider, method: string, url: string, error: Error): ErrorAnswer {
    const message = `modeltape failed on ${method} ${redactPathQuery(url)}: ${error.message}`;
    this.counts.internalErrors++;
    this.problem(message);
    return { kind: 'error', provider, status: 500, type: 'modeltape_internal_error', message };
  }

  // The recorded response to send, its JSON-RPC response renumbered to the request's id where the
  // client numbered this call otherwise than the recording's client did.
  #answering(exchange: Exchange, rpcId: JsonRpcId | undefined): PreparedResponse {
    const prepared = this.prepared(exchange);
    if (rpcId === undefined) return prepared;
    const body = exchange.request.body;
    const recorded = body !== undefined && 'json' in body ? jsonRpcIdOf(body.json) : undefined;
    return recorded === undefined || recorded === rpcId ? prepared : renumberPrepared(prepared, recorded, rpcId);
  }

  /** A recorded response made ready to serve, once per exchange. */
  prepared(exchange: Exchange): PreparedResponse {
    let ready = this.#prepared.get(exchange);
    if (ready === undefined) {
      ready = prepareResponse(exchange.response);
      this.#prepared.set(exchange, ready);
    }
    return ready;
  }

  /** Whether the run was clean: nothing missed, refused, lost, failed, aborted or escaped. */
  get clean(): boolean {
    const counts = this.counts;
    return (
      counts.misses === 0 &&
      counts.refused === 0 &&
      counts.writeErrors === 0 &&
      counts.upstreamErrors === 0 &&
      counts.internalErrors === 0 &&
      counts.aborted === 0 &&
      (counts.unrouted ?? 0) === 0 &&
      counts.escapes.length === 0
    );
  }

  /** Flushes the tape, then prunes it when asked (see RunningProxy.close). */
  async finish(prune: boolean | undefined): Promise<void> {
    await this.recorder?.close();
    this.counts.pruned = pruneAtClose(this.options, this.engine, this.clean, prune, (message) => this.log(message));
    this.engine?.close();
  }
}

// A status fault as the provider sends it (its error body, `retry-after`), marked as modeltape's
// chaos in the header and the message.
function faultReply(provider: Provider, kind: TransientFailure, chaos: ResolvedChaos): { status: number; headers: Record<string, string>; body: string } {
  const error = transientFailure(provider, kind, `modeltape chaos, seed ${chaos.seed}`, chaos.retryAfterMs);
  const body = JSON.stringify(errorBody(provider, error));
  return {
    status: error.status,
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'retry-after-ms': String(chaos.retryAfterMs),
      'retry-after': String(Math.ceil(chaos.retryAfterMs / 1000)),
      ...errorHeaders(provider, error.type),
      [CHAOS_HEADER]: kind,
    },
    body,
  };
}

/** The header on every chaos fault's answer: its kind. */
export const CHAOS_HEADER = 'x-modeltape-chaos';

// The upstream table with every upstream the tape names; the ones it did not have point nowhere,
// as MCP servers where their recordings are JSON-RPC.
function withTapeUpstreams(table: ReadonlyMap<string, Upstream>, engine: ReplayEngine): ReadonlyMap<string, Upstream> {
  const missing: Record<string, string> = {};
  for (const name of engine.upstreams()) {
    if (table.has(name)) continue;
    const nowhere = `https://${name.replaceAll('_', '-')}.tape.invalid`;
    missing[name] = recordsJsonRpc(engine, name) ? `mcp+${nowhere}` : nowhere;
  }
  if (Object.keys(missing).length === 0) return table;
  const added = buildUpstreamTable(missing);
  const widened = new Map(table);
  for (const name of Object.keys(missing)) widened.set(name, added.get(name)!);
  return widened;
}

// Whether the first recording of an upstream is a JSON-RPC message (an MCP server's).
function recordsJsonRpc(engine: ReplayEngine, upstream: string): boolean {
  for (const entry of engine.entries()) {
    if (ReplayEngine.upstreamOf(entry) !== upstream) continue;
    try {
      const body = entry.exchange.request.body;
      return body !== undefined && 'json' in body && isJsonRpcMessage(body.json);
    } catch {
      // An invalid line says so where it is used.
    }
  }
  return false;
}

// The engine a run replays from and numbers its recordings with (none in passthrough), and the
// key rules: the tape's own, unless the run names others.
function openEngine(resolved: ResolvedProxyOptions, log: (message: string) => void): { engine: ReplayEngine | undefined; keyRules: CompiledKeyRules } {
  const { mode } = resolved;
  const keyRules = resolved.keyRules ?? compileKeyRules();
  if (mode === 'passthrough') return { engine: undefined, keyRules };
  // Read once: the tape's own rules key it unless the run names others. A tape that is not there
  // is found by opening it (no stat first).
  let loaded: ReturnType<typeof ReplayEngine.fromTape> | undefined;
  try {
    loaded = ReplayEngine.fromTape(resolved.tape, {
      repeat: resolved.repeat,
      ...(resolved.repeatLine === undefined ? {} : { repeatLines: new Set([resolved.repeatLine]) }),
      requireLive: resolved.requireLive,
      ...(resolved.keyRules === undefined ? {} : { keyRules: resolved.keyRules }),
      ...(resolved.configFile === undefined ? {} : { configFile: resolved.configFile }),
    });
  } catch (error) {
    if (!(error instanceof TapeNotFoundError)) throw error;
  }
  if (loaded !== undefined) {
    const engine = loaded.engine;
    for (const warning of loaded.warnings) log(`modeltape: warning: ${warning.file}:${warning.line}: ${warning.message}`);
    if (mode === 'record' && engine.size > 0) {
      log(
        resolved.append
          ? `modeltape: ${resolved.tape} holds ${engine.size} exchange${engine.size === 1 ? '' : 's'}; recording appends (--append): a request it holds gets another recording after its own, replayed in turn.`
          : `modeltape: ${resolved.tape} holds ${engine.size} exchange${engine.size === 1 ? '' : 's'}; a request recorded again replaces its recording in place, and the rest stay. To keep both recordings of a request instead, pass --append ("append": true in modeltape.config.json).`,
      );
    }
    return { engine, keyRules: engine.keyRules };
  }
  if (mode === 'replay' && resolved.missingTape === 'error') {
    const record = `modeltape run --tape ${displayPath(resolved.tape)} --mode record -- <your command>`;
    throw new TapeNotFoundError(resolved.tape, undefined, resolved.advice.ci === true ? ciRecordAdvice(record) : `Record it first: ${record}`);
  }
  return { engine: new ReplayEngine({ file: resolved.tape, keyRules, repeat: resolved.repeat }), keyRules };
}

// Pruning is asked for at start (the prune option) or at close ({ prune: true }); a close with
// { prune: false } vetoes it (a caller whose command failed). Returns how many exchanges it dropped.
function pruneAtClose(
  resolved: ResolvedProxyOptions,
  engine: ReplayEngine | undefined,
  clean: boolean,
  prune: boolean | undefined,
  log: (message: string) => void,
): number {
  const { tape, mode } = resolved;
  const wanted = prune ?? resolved.prune;
  if (wanted && mode !== 'auto') {
    log(`modeltape: not pruning ${tape}: pruning drops what a run did not use, so it needs mode auto (this session ran in ${mode}).`);
  } else if (wanted && clean && engine !== undefined) {
    const dropped = engine.unused();
    const pruned = pruneTape(tape, engine);
    if (pruned > 0) {
      const shown = dropped
        .slice(0, 20)
        .map(
          (entry) =>
            `  line ${entry.line ?? '?'}: ${entry.exchange.request.method} ${entry.exchange.request.path} (${entry.exchange.upstream}) #${entry.exchange.ordinal}`,
        );
      if (dropped.length > shown.length) shown.push(`  … and ${dropped.length - shown.length} more`);
      log(`modeltape: pruned ${tape}: dropped ${pruned} exchange${pruned === 1 ? '' : 's'} this run never used:\n${shown.join('\n')}`);
    } else log(`modeltape: pruned ${tape}: every exchange was used, nothing dropped.`);
    return pruned;
  } else if (resolved.prune || prune === true) {
    log(
      `modeltape: not pruning ${tape}: ${clean ? 'the command did not succeed' : 'the run was not clean (a miss, refusal, write error, upstream error, aborted request or escape)'}, so it may not have used every exchange it needs.`,
    );
  }
  return 0;
}
