// An MCP server over stdio, recorded and replayed: `modeltape mcp --tape F -- SERVER_CMD…` stands
// where the agent's config names the server command. Each message the client writes is a request
// to the proxy's one decision path (keyed, counted and explained as an MCP call over HTTP is);
// what the server writes back until the next client message is its answer, as NDJSON lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { ancestorRunVariables, appendRunReport, describeThisProcess, runEnvironment, RUN_VARIABLES } from '../../guard/internal.js';
import {
  checkJsonRpcLine,
  describeJsonRpc,
  isJsonRpcMessage,
  isJsonRpcRequest,
  isJsonRpcResponse,
  jsonRpcIdOf,
  jsonRpcRefusalBody,
  type JsonRpcId,
  type JsonRpcRefusal,
} from '../../providers/internal.js';
import { answerLines, NDJSON_HEADERS } from '../core/answer-lines.js';
import { readBoundedLines, type LongLine } from './bounded-lines.js';
import { decideRequest } from '../core/decide-request.js';
import { describeBytes } from '../core/response-recording.js';
import { LateStart, isErrorAnswer } from './mcp-late-start.js';
import { ProxyCore, errorReply, type OwnAnswer, type ProxySummary } from '../core/proxy-core.js';
import type { ProxyMode, ProxyOptions } from '../core/proxy-options.js';
import type { ProxyRequest } from '../core/proxy-request.js';
import { relayLines } from './relay-lines.js';
import { ResponseRecording } from '../core/response-recording.js';
import type { Route } from '../core/router.js';

/** The upstream name a stdio server's exchanges are kept under unless `name` says otherwise. */
export const STDIO_MCP_UPSTREAM = 'mcp-stdio';

export interface McpStdioOptions extends Omit<ProxyOptions, 'upstreams' | 'port' | 'host' | 'chaos' | 'pace'> {
  /** The server's command and arguments, as the agent's config names them. Not started in replay. */
  command: readonly string[];
  /** The upstream name on the tape (one tape can hold several servers). @default 'mcp-stdio' */
  name?: string;
  /** Where the client writes (the agent's end of the pipe). */
  stdin: Readable;
  /** Where the client reads. Only protocol messages are written here; everything else goes to `log`. */
  stdout: Writable;
  /**
   * Where the server's stderr goes, whole lines at a time (the CLI gives its own stderr, which
   * masks and escapes every write: a server that prints its environment prints its keys).
   * @default the server writes to this process's stderr itself
   */
  stderr?: Writable;
  /** The server's environment. @default the `env` option, else process.env */
  serverEnv?: NodeJS.ProcessEnv;
  /** The server's working directory. @default process.cwd() */
  cwd?: string;
  /**
   * Under `modeltape drift`: the drift items of a summary, for the run's report (the drift
   * report is built above the proxy).
   */
  driftsOf?: (summary: ProxySummary) => unknown[];
}

export interface McpStdioResult {
  summary: ProxySummary;
  /** The server's exit status (128 + its signal's number), or undefined when none was started. */
  serverStatus: number | undefined;
}

// How long a server gets to exit once its stdin is closed, before it is sent SIGTERM.
const EXIT_GRACE_MS = 2000;
// How long a server gets to answer what it was asked once the client has closed its end.
const ANSWER_GRACE_MS = 10_000;

// A message sent to the server, collecting what the server writes until it is complete.
interface Slot {
  route: Route;
  request: ProxyRequest;
  recording: ResponseRecording;
  record: boolean;
  /** A request's id: complete once its response came. */
  awaiting: JsonRpcId | undefined;
  /** The server exited before answering it: not recorded. */
  failed?: boolean;
  /** The server's answer to it is an error (a JSON-RPC error, a tool result with isError). */
  errorAnswer?: boolean;
}

/**
 * Bridges a client's stdio to an MCP server's, through the tape, until the client closes its end
 * (or `stop()` is called: a signal). Replay answers from the tape and starts nothing; record starts
 * the server and records every message both ways; auto replays what the tape has and, at the
 * first miss, starts the server, shows it the session's handshake and the client's answers to what
 * the recorded server asked of it there (see {@link LateStart}), and records from there;
 * passthrough forwards and writes nothing. A miss of a request is answered as a JSON-RPC error
 * naming the nearest recorded call.
 */
export function bridgeMcpStdio(options: McpStdioOptions): { done: Promise<McpStdioResult>; stop(): void } {
  const name = options.name ?? STDIO_MCP_UPSTREAM;
  const given = options.env ?? process.env;
  // Under `modeltape run` (or `drift`) the bridge follows the run, as a tape session does; an MCP
  // client that started it with a stripped environment left the run's variables with its parent.
  const env = given[RUN_VARIABLES.report] ? given : { ...ancestorRunVariables(), ...given };
  const run = runEnvironment(env);
  const core = ProxyCore.open({
    ...options,
    ...(options.mode === undefined && env[RUN_VARIABLES.mode] ? { mode: env[RUN_VARIABLES.mode] as ProxyMode } : {}),
    ...(options.onMiss === undefined && run.onMiss !== undefined ? { onMiss: run.onMiss } : {}),
    upstreams: { [name]: `mcp+http://${name}.stdio.invalid` },
  });
  const clock = (): number => performance.now();
  const open: Slot[] = [];
  // What a server auto mode starts after replaying part of the session must see first.
  const late = new LateStart();
  let server: ChildProcess | undefined;
  let serverStatus: number | undefined;
  let starts = 0;
  // The server is being stopped by modeltape: its status then is not the server's failure.
  let stopping = false;
  let inputEnded = false;
  const awaitingAnswers = (): boolean => open.some((slot) => slot.awaiting !== undefined);
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });

  let clientGone = false;
  const write = (text: string): void => {
    if (!clientGone && !options.stdout.writableEnded && !options.stdout.destroyed) options.stdout.write(text);
  };
  // The client closed its end of our stdout (EPIPE): nothing more reaches it; the session ends.
  options.stdout.on('error', () => {
    clientGone = true;
    finish();
  });

  const startServer = (): ChildProcess => {
    const [command, ...args] = options.command;
    starts++;
    const child = spawn(command!, args, {
      stdio: ['pipe', 'pipe', options.stderr === undefined ? 'inherit' : 'pipe'],
      env: options.serverEnv ?? options.env ?? process.env,
      cwd: options.cwd ?? process.cwd(),
    });
    child.on('error', (error) => {
      core.counts.upstreamErrors++;
      core.problem(`Could not start the MCP server ${JSON.stringify(options.command.join(' '))}: ${error.message}`);
      finish();
    });
    // 'close', not 'exit': what the server wrote before it exited is read to the end first.
    child.on('close', (code, signal) => {
      serverStatus = stopping ? 0 : (code ?? 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0)));
      const unanswered = open.filter((slot) => slot.awaiting !== undefined);
      if (unanswered.length > 0) {
        core.counts.upstreamErrors += unanswered.length;
        const message = `The MCP server ${JSON.stringify(options.command.join(' '))} exited (status ${serverStatus}) with ${unanswered.length} request${unanswered.length === 1 ? '' : 's'} unanswered.`;
        core.problem(message);
        for (const slot of unanswered) {
          write(
            `${errorReply({ kind: 'error', provider: 'mcp', status: 502, type: 'modeltape_upstream_error', message, rpcId: slot.awaiting! }, false).body}\n`,
          );
          slot.awaiting = undefined;
          slot.failed = true;
        }
      }
      finish();
    });
    child.stdin!.on('error', () => undefined);
    if (options.stderr !== undefined) relayLines(child.stderr!, options.stderr);
    readBoundedLines(child.stdout!, core.options.limits.responseBodyBytes, serverLines);
    late.start((line) => child.stdin!.write(`${line}\n`));
    return child;
  };

  const onServerLine = (line: string): void => {
    const message = parsed(line);
    // Not a protocol message (a server logging to stdout): passed on as the server wrote it, as
    // without modeltape, but not recorded; the summary says so.
    if (message === undefined && line.trim() !== '') {
      notJsonRpc.count++;
      notJsonRpc.first ??= `${describeBytes(Buffer.byteLength(line))}: ${JSON.stringify(line.slice(0, 80))}${line.length > 80 ? '…' : ''}`;
      write(`${line}\n`);
      return;
    }
    // The server's answer to a request modeltape already answered for it (see refuseLongServerLine).
    if (isJsonRpcResponse(message) && refusedIds.delete(jsonRpcIdOf(message)!)) return;
    // The late start's own traffic: the replayed handshake's answers, the server's requests the
    // replayed part answered. The client had those from the tape.
    if (late.serverMessage(message)) return;
    const id = isJsonRpcResponse(message) ? jsonRpcIdOf(message) : undefined;
    const answered = id === undefined ? undefined : open.find((slot) => slot.awaiting === id);
    if (answered !== undefined) {
      answered.awaiting = undefined;
      answered.errorAnswer = isErrorAnswer(message);
    }
    if (answered !== undefined && inputEnded && !awaitingAnswers()) setImmediate(finish);
    // A notification or a request of the server's belongs to the message the client sent last.
    (answered ?? open[open.length - 1])?.recording.data(Buffer.from(`${line}\n`, 'utf8'));
    write(`${line}\n`);
  };

  // Lines the server wrote that are not JSON-RPC messages: how many, and the first.
  const notJsonRpc: { count: number; first?: string } = { count: 0 };
  // Requests the server was writing a line over the limit for: answered with an error by modeltape,
  // so the server's own answer, if it ever ends, is dropped.
  const refusedIds = new Set<JsonRpcId>();
  // The server's line over the limit, once the request it answers is known and was answered.
  let longServerLineHandled = false;

  // A line of the server's over the response body limit is neither passed on nor recorded (held
  // whole, it would end this process): the request it answers gets a JSON-RPC error at once, and
  // the run fails, as for a response over the limit over HTTP.
  const refuseLongServerLine = (line: LongLine, ended: boolean): void => {
    if (longServerLineHandled) {
      if (ended) longServerLineHandled = false;
      return;
    }
    const awaiting = open.filter((slot) => slot.awaiting !== undefined);
    const id = idAtEnds(
      line,
      awaiting.map((slot) => slot.awaiting!),
    );
    // The line's id is not known until it ends: while it is read, the only request awaiting an answer is the one it answers.
    const slot = id !== undefined ? awaiting.find((candidate) => candidate.awaiting === id) : !ended && awaiting.length === 1 ? awaiting[0] : undefined;
    if (slot === undefined && !ended) return;
    longServerLineHandled = !ended;
    const limit = core.options.limits.responseBodyBytes;
    const what = slot === undefined ? '' : ` while answering ${describeJsonRpc(parsed(slot.request.body.toString('utf8')))}`;
    const message =
      `The MCP server ${JSON.stringify(options.command.join(' '))} wrote a line over the ${describeBytes(limit)} limit of a response${what}: it was neither passed on nor recorded${slot === undefined ? '' : ', and the request got a JSON-RPC error'}.\n` +
      `Raise the limit with --max-response-body BYTES (limits.responseBodyBytes in the config file), or have the server answer with less.`;
    core.counts.refused++;
    core.problem(message);
    // The message the line belongs to cannot be recorded whole.
    const spoilt = slot ?? open[open.length - 1];
    if (spoilt !== undefined) spoilt.failed = true;
    if (slot === undefined) return;
    refusedIds.add(slot.awaiting!);
    write(`${errorReply({ kind: 'error', provider: 'mcp', status: 502, type: 'modeltape_response_too_large', message, rpcId: slot.awaiting! }, false).body}\n`);
    slot.awaiting = undefined;
    if (inputEnded && !awaitingAnswers()) setImmediate(finish);
  };
  const serverLines = {
    line: onServerLine,
    overLimit: (line: LongLine) => refuseLongServerLine(line, false),
    longLineEnded: (line: LongLine) => refuseLongServerLine(line, true),
    end: () => undefined,
  };

  // Every slot that is complete is recorded, in order; one still waiting for its response stays.
  const settle = (): void => {
    for (let index = 0; index < open.length; ) {
      const slot = open[index]!;
      if (slot.awaiting !== undefined) {
        index++;
        continue;
      }
      open.splice(index, 1);
      if (slot.failed === true) continue;
      if (slot.record && slot.errorAnswer === true && late.incomplete !== undefined) {
        // A server that did not get where the recorded one was answers as it would not have: not a recording.
        core.counts.upstreamErrors++;
        core.problem(
          `The MCP server ${JSON.stringify(options.command.join(' '))}, started behind the replayed part of the session, answered ${describeJsonRpc(parsed(slot.request.body.toString('utf8')))} with an error, and the handshake it was shown was not complete (${late.incomplete}): the answer is not recorded. Record the session whole with --mode record.`,
        );
        continue;
      }
      if (slot.record) core.recorder!.recordAfterSend(slot.route, slot.request, slot.recording);
      else core.counts.passthrough++;
    }
  };

  const onClientLine = (line: string): void => {
    if (line.trim() === '') return;
    settle();
    const checked = checkJsonRpcLine(line);
    if ('refusals' in checked) return refuseClientLine(line, checked.refusals, checked.batch);
    const message = checked.message;
    const body = Buffer.from(line, 'utf8');
    const request: ProxyRequest = {
      method: 'POST',
      url: `/${name}`,
      headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
      body,
    };
    // A client's answer to a server's request: kept for a server started later, or the live server's.
    const route = late.clientAnswer(message);
    const decision = decideRequest(core.context, request);
    if (decision.kind === 'forward') {
      core.noteUnrecorded(decision);
      server ??= startServer();
      const recording = new ResponseRecording(clock, core.options.limits.responseBodyBytes);
      const awaiting = isJsonRpcRequest(message) ? jsonRpcIdOf(message) : undefined;
      recording.start(awaiting === undefined ? 202 : 200, NDJSON_HEADERS);
      open.push({ route: decision.route, request, recording, record: decision.record, awaiting });
      if (route !== 'kept') late.send(line);
      return;
    }
    // Answered from the tape: a server auto mode starts later must see the handshake it missed;
    // the live server must have the client's answer to its own request.
    if (decision.kind === 'hit') late.replayedClientLine(line, message);
    if (decision.kind === 'hit' && route === 'to-server') late.send(line);
    answer(core.answer(decision), message);
  };

  // A line that is not one JSON-RPC message gets the errors JSON-RPC 2.0 answers it with (so a
  // client waiting on its id is not left waiting); it goes nowhere else, and the run fails.
  const refuseClientLine = (line: string, refusals: JsonRpcRefusal[], batch: boolean): void => {
    core.counts.refused++;
    const answered =
      refusals.length === 0
        ? 'not answered (a batch of notifications has no answer)'
        : batch
          ? `answered with ${refusals.length} JSON-RPC error${refusals.length === 1 ? '' : 's'} ${refusals[0]!.code}`
          : `answered with JSON-RPC error ${refusals[0]!.code}`;
    core.problem(
      `Refused a line from the MCP client (${describeBytes(Buffer.byteLength(line))}): ${refusals[0]?.message ?? 'Invalid Request: a batch; MCP takes one JSON-RPC message a line'}. It was ${answered}; not sent to the server, not recorded.`,
    );
    if (refusals.length === 0) return;
    const bodies = refusals.map(jsonRpcRefusalBody);
    write(`${JSON.stringify(batch ? bodies : bodies[0])}\n`);
  };

  // A client's line over the request body limit gets the refusal a body over the limit gets over
  // HTTP: at once when its start shows its id, else when it ends (SDKs write the id last), under
  // the id its end shows, or null.
  let longClientLineRefused = false;
  const refuseLongClientLine = (line: LongLine, ended: boolean): void => {
    if (longClientLineRefused) {
      if (ended) longClientLineRefused = false;
      return;
    }
    const id = idAtEnds(line, undefined);
    if (id === undefined && !ended) return;
    longClientLineRefused = !ended;
    const decision = decideRequest(core.context, { method: 'POST', url: `/${name}`, headers: { 'content-length': String(line.bytes) }, body: Buffer.alloc(0) });
    const own = decision.kind === 'refuse' ? core.answer(decision) : undefined;
    if (own?.kind === 'error') write(`${errorReply({ ...own, ...(id === undefined ? {} : { rpcId: id }) }, false).body}\n`);
  };

  const answer = (own: OwnAnswer, message: unknown): void => {
    if (own.kind === 'recorded') {
      for (const line of answerLines(own.prepared)) {
        late.replayedServerLine(line);
        write(`${line}\n`);
      }
      return;
    }
    // A request gets its error under its id, whatever refused it; a notification, or a client's
    // answer to the server, has nothing to carry it: the log and the summary do.
    const id = isJsonRpcRequest(message) ? jsonRpcIdOf(message) : undefined;
    if (own.kind === 'error' && id !== undefined) write(`${errorReply({ ...own, rpcId: id }, false).body}\n`);
  };

  const lines = readBoundedLines(options.stdin, core.options.limits.requestBodyBytes, {
    line: (line) => {
      try {
        onClientLine(line);
      } catch (error) {
        answer(core.internalError('mcp', 'POST', `/${name}`, error as Error), parsed(line));
      }
    },
    overLimit: (line) => refuseLongClientLine(line, false),
    longLineEnded: (line) => refuseLongClientLine(line, true),
    // The client is done writing: the server gets a while to answer what it was asked.
    end: () => {
      inputEnded = true;
      if (!awaitingAnswers()) finish();
      else setTimeout(finish, ANSWER_GRACE_MS).unref();
    },
  });

  const done = (async (): Promise<McpStdioResult> => {
    await finished;
    late.dispose();
    lines.close();
    settle();
    for (const slot of open.splice(0)) {
      if (slot.awaiting !== undefined && serverStatus === undefined) core.counts.aborted++;
    }
    if (server !== undefined && serverStatus === undefined) {
      stopping = true;
      await stopServer(server);
    }
    if (notJsonRpc.count > 0)
      core.problem(
        `The MCP server ${JSON.stringify(options.command.join(' '))} wrote ${notJsonRpc.count === 1 ? 'a line' : `${notJsonRpc.count} lines`} to stdout that ${notJsonRpc.count === 1 ? 'is' : 'are'} not JSON-RPC (the first, ${notJsonRpc.first}): passed on to the client, not recorded. The stdio transport carries only JSON-RPC messages; a server logs to stderr.`,
      );
    await core.finish(options.prune);
    const summary = core.summary({ upstreamConnections: starts, outside: [] });
    reportToRun(summary, core, run.reportFile, options.driftsOf);
    return { summary, serverStatus };
  })();
  return { done, stop: () => finish() };
}

// Closes the server's stdin and waits for it to exit, as the SDK's client does; then SIGTERM.
async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('close', () => resolve()));
  server.stdin?.end();
  const terminate = setTimeout(() => server.kill('SIGTERM'), EXIT_GRACE_MS);
  const kill = setTimeout(() => server.kill('SIGKILL'), 2 * EXIT_GRACE_MS);
  await exited;
  clearTimeout(terminate);
  clearTimeout(kill);
}

// The top-level id of a line over the limit, read off its ends (`{"jsonrpc":"2.0","id":3,…` or
// `…,"jsonrpc":"2.0","id":3}`, as the SDKs write them); with `among`, only one of those.
function idAtEnds(line: LongLine, among: readonly JsonRpcId[] | undefined): JsonRpcId | undefined {
  const found = [
    /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(line.head),
    /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(line.tail),
  ]
    .filter((match) => match !== null)
    .map((match) => JSON.parse(match[1]!) as JsonRpcId);
  return found.find((id) => among === undefined || among.includes(id));
}

function parsed(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isJsonRpcMessage(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

// Under `modeltape run`, the run's verdict counts this server's misses as a tape session's.
function reportToRun(summary: ProxySummary, core: ProxyCore, file: string | undefined, driftsOf: McpStdioOptions['driftsOf']): void {
  if (file === undefined || file === '') return;
  appendRunReport(file, {
    kind: 'session',
    session: {
      tape: summary.tape,
      mode: summary.mode,
      process: describeThisProcess(),
      hits: summary.hits,
      misses: summary.misses,
      recorded: summary.recorded,
      passthrough: summary.passthrough,
      refused: summary.refused,
      writeErrors: summary.writeErrors,
      upstreamErrors: summary.upstreamErrors,
      internalErrors: summary.internalErrors,
      upstreamConnections: summary.upstreamConnections,
      problems: summary.problems.slice(0, 5),
      drifts: summary.missErrors.length > 0 && driftsOf !== undefined ? driftsOf(summary) : [],
      closed: true,
      path: realPath(summary.tape),
      used: core.engine?.usedLines() ?? [],
    },
  });
}

function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
