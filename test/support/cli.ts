import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI, run the way `npx modeltape` runs it. */
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `modeltape ARGS…` to completion. The environment has no CI unless given. */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: cliEnv(options.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a long-running `modeltape` command and resolves with its first stdout line. */
export function startCli(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<{ child: ChildProcess; firstLine: string; output: () => CliResult; exited: Promise<number | null> }> {
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
  return { ...env, ...extra };
}

/**
 * Runs `modeltape ARGS…` in process through the built CLI's `main(argv, io)`, as `npx modeltape`
 * would, with an empty environment, collecting what it prints.
 */
export async function runMain(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { PassThrough } = await import('node:stream');
  const { main } = (await import('../../dist/cli/main.js')) as { main: (argv: string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv }) => Promise<number> };
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  const code = await main(args, { stdout, stderr, env: {} });
  return { code, stdout: out, stderr: err };
}
