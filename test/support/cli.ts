import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';

/** The built CLI, run the way `npx modeltape` runs it. */
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What a spawned `modeltape` reads on stdin: each line in turn, `gapMs` after the one before (as a client that waits for each answer), then the end. */
export interface StdinLines {
  lines: readonly string[];
  gapMs: number;
}

/** Runs `modeltape ARGS…` to completion, writing `stdin` to it when given. The environment has no CI unless given. */
export function runCli(args: string[], options: CliOptions & { stdin?: StdinLines } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: cliEnv(options.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    const stdin = options.stdin;
    if (stdin === undefined) return;
    void (async () => {
      for (const line of stdin.lines) {
        child.stdin.write(`${line}\n`);
        await new Promise((wait) => setTimeout(wait, stdin.gapMs));
      }
      child.stdin.end();
    })();
  });
}

/** Starts a long-running `modeltape` command and resolves with its first stdout line. */
export function startCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<{ child: ChildProcess; firstLine: string; output: () => CliResult; exited: Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv(options.env) });
    let stdout = '';
    let stderr = '';
    let resolved = false;
    const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (!resolved && newline >= 0) {
        resolved = true;
        resolve({ child, firstLine: stdout.slice(0, newline), output: () => ({ code: child.exitCode, stdout, stderr }), exited });
      }
    });
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    void exited.then((code) => {
      if (!resolved) reject(new Error(`modeltape ${args.join(' ')} exited with ${code} before printing a line:\n${stderr}`));
    });
  });
}

// The tests' own CI setting must not leak into the commands they start.
function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.CI;
  delete env.OPENAI_API_KEY;
  delete env.ANTHROPIC_API_KEY;
  delete env.AZURE_OPENAI_API_KEY;
  delete env.AZURE_OPENAI_ENDPOINT;
  return { ...env, ...extra };
}

/** How a test runs `modeltape`, spawned or in process. */
export interface CliOptions {
  /** Added to the environment the command gets: the test's own, without CI or provider keys. */
  env?: NodeJS.ProcessEnv;
  /** The directory the command works in (its config file, where CMD starts). @default process.cwd() */
  cwd?: string;
}

type Main = (
  argv: string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv; cwd?: string; signals?: NodeJS.EventEmitter },
) => Promise<number>;

/**
 * Runs `modeltape ARGS…` in process through the built CLI's `main(argv, io)`, as `npx modeltape`
 * would: the environment and directory of `runCli`, what it prints (CMD's output too) collected,
 * and its signals its own, so nothing reaches or stays on the test's process.
 */
export async function runMain(args: string[], options: CliOptions = {}): Promise<CliResult & { code: number }> {
  const started = await startMainIo(args, options);
  return started.exited;
}

/**
 * Starts a long-running `modeltape` command (proxy, fake) in process and resolves with its first
 * stdout line. `stop(signal)` sends it the signal, as a terminal would, and resolves with its
 * result; `close()` stops it with SIGTERM, so `closeAfterEach` can register it.
 */
export async function startMain(
  args: string[],
  options: CliOptions = {},
): Promise<{
  firstLine: string;
  output: () => CliResult;
  stop: (signal?: 'SIGTERM' | 'SIGINT') => Promise<CliResult & { code: number }>;
  close: () => Promise<unknown>;
}> {
  const started = await startMainIo(args, options);
  const firstLine = await Promise.race([
    started.firstLine,
    started.exited.then((result) => {
      throw new Error(`modeltape ${args.join(' ')} exited with ${result.code} before printing a line:\n${result.stderr}`);
    }),
  ]);
  let stopped: Promise<CliResult & { code: number }> | undefined;
  const stop = (signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM') => {
    if (stopped === undefined) {
      started.signals.emit(signal);
      stopped = started.exited;
    }
    return stopped;
  };
  return { firstLine, output: started.output, stop, close: () => stop() };
}

async function startMainIo(args: string[], options: CliOptions) {
  const { main } = (await import('../../dist/cli/main.js')) as { main: Main };
  const signals = new EventEmitter();
  let out = '';
  let err = '';
  let lineFound!: (line: string) => void;
  const firstLine = new Promise<string>((resolve) => (lineFound = resolve));
  const stdout = collector((text) => {
    out += text;
    const newline = out.indexOf('\n');
    if (newline >= 0) lineFound(out.slice(0, newline));
  });
  const stderr = collector((text) => (err += text));
  const exited = main(args, { stdout, stderr, env: cliEnv(options.env), ...(options.cwd === undefined ? {} : { cwd: options.cwd }), signals }).then((code) => ({
    code,
    stdout: out,
    stderr: err,
  }));
  return { firstLine, exited, signals, output: (): CliResult => ({ code: null, stdout: out, stderr: err }) };
}

// A stream that hands over what is written at once (a PassThrough's 'data' can come a tick after
// main has returned), decoding bytes across chunks as a terminal would.
function collector(take: (text: string) => void): Writable {
  const decoder = new StringDecoder('utf8');
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      take(typeof chunk === 'string' ? chunk : decoder.write(chunk));
      done();
    },
  });
}
