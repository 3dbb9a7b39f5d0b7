// An MCP server over stdio, recorded and replayed: `modeltape mcp --tape F -- SERVER_CMD…` stands
// where the agent's config names the server command. Each message the client writes is a request
// to the proxy's one decision path (keyed, counted and explained as an MCP call over HTTP is);
// what the server writes back until the next client message is its answer, as NDJSON lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { constants } from 'node:os';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { ancestorRunVariables, appendRunReport, describeThisProcess, runEnvironment, RUN_VARIABLES } from '../guard/internal.js';
import { describeJsonRpc, isJsonRpcMessage, isJsonRpcRequest, isJsonRpcResponse, jsonRpcIdOf, type JsonRpcId } from '../providers/internal.js';
import { decideRequest } from './decide-request.js';
import { LateStart, isErrorAnswer } from './mcp-late-start.js';
import { ProxyCore, errorReply, type OwnAnswer, type ProxySummary } from './proxy-core.js';
import type { ProxyMode, ProxyOptions } from './proxy-options.js';
import type { ProxyRequest } from './proxy-request.js';
import { relayLines } from './relay-lines.js';
import { ResponseRecording } from './response-recording.js';
import type { Route } from './router.js';

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

// A stdio answer as the tape holds it: the server's lines, one NDJSON frame each.
const NDJSON = { 'content-type': 'application/x-ndjson', 'transfer-encoding': 'chunked' };
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
  const { mode } = core;
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
    createInterface({ input: child.stdout!, crlfDelay: Infinity }).on('line', onServerLine);
    late.start((line) => child.stdin!.write(`${line}\n`));
    return child;
  };

  const onServerLine = (line: string): void => {
    const message = parsed(line);
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
    const message = parsed(line);
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
      recording.start(awaiting === undefined ? 202 : 200, NDJSON);
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

  const answer = (own: OwnAnswer, message: unknown): void => {
    if (own.kind === 'recorded') {
      for (const line of linesOf(own.prepared)) {
        late.replayedServerLine(line);
        write(line);
      }
      return;
    }
    // A request gets its error under its id, whatever refused it; a notification, or a client's
    // answer to the server, has nothing to carry it: the log and the summary do.
    const id = isJsonRpcRequest(message) ? jsonRpcIdOf(message) : undefined;
    if (own.kind === 'error' && id !== undefined) write(`${errorReply({ ...own, rpcId: id }, false).body}\n`);
  };

  const lines = createInterface({ input: options.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    try {
      onClientLine(line);
    } catch (error) {
      answer(core.internalError('mcp', 'POST', `/${name}`, error as Error), parsed(line));
    }
  });
  // The client is done writing: the server gets a while to answer what it was asked.
  lines.on('close', () => {
    inputEnded = true;
    if (!awaitingAnswers()) finish();
    else setTimeout(finish, ANSWER_GRACE_MS).unref();
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
    await core.finish(options.prune);
    const summary: ProxySummary = {
      tape: core.options.tape,
      mode,
      ...core.counts,
      problems: [...core.counts.problems],
      missErrors: [...core.counts.missErrors],
      escapes: [...core.counts.escapes],
      upstreamConnections: starts,
      outside: [],
    };
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

// The lines a recorded answer gives the client: NDJSON frames as they are, the data of SSE events
// (an answer recorded over HTTP), or a JSON body.
function linesOf(prepared: { body: Buffer; frames: Array<{ bytes: Buffer }> | undefined; format: string | undefined }): string[] {
  if (prepared.frames === undefined) return prepared.body.length === 0 ? [] : [`${prepared.body.toString('utf8').trimEnd()}\n`];
  if (prepared.format === 'sse') {
    return prepared.frames.flatMap(({ bytes }) =>
      bytes
        .toString('utf8')
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => `${line.slice(line.startsWith('data: ') ? 6 : 5)}\n`),
    );
  }
  return prepared.frames.map(({ bytes }) => {
    const text = bytes.toString('utf8');
    return text.endsWith('\n') ? text : `${text}\n`;
  });
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
