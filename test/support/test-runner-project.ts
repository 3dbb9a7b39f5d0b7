import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A user's project in `dir` (a temporary folder inside this one, so `openai`, `vitest` and `jest`
 * resolve from the project's node_modules as a user's own would): its `files`, and modeltape
 * installed as the tarball holds it, its package.json and the built dist/ alone, so it is reached
 * through its `exports` only (no source folder next to it to resolve by accident).
 */
export function userProject(dir: string, files: Record<string, string>): void {
  const installed = join(dir, 'node_modules', 'modeltape');
  mkdirSync(installed, { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(installed, 'package.json'));
  symlinkSync(join(ROOT, 'dist'), join(installed, 'dist'));
  for (const [name, text] of Object.entries({ 'package.json': '{ "name": "user-project", "private": true, "type": "module" }\n', ...files })) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node args…` in `cwd` as a developer's shell would: no CI, no modeltape mode, no key, and
 * none of the variables of the Vitest running this test (a runner started from it would take
 * them for its own), then `env` on top.
 */
export function runNode(args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<Finished> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(VITEST|JEST|MODELTAPE_|NODE_TEST_CONTEXT$|CI$|OPENAI_API_KEY$|TEST$|NODE_OPTIONS$)/.test(name)),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: { ...env, FORCE_COLOR: '0', NO_COLOR: '1', ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${args.join(' ')} did not finish in ${options.timeoutMs ?? 60_000} ms:\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The script of a dev dependency's command (`jest`, `vitest`, `tsc`), to run with `node`. */
export function binOf(name: string, command = name): string {
  const manifest = require.resolve(`${name}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: string | Record<string, string> };
  return join(dirname(manifest), typeof bin === 'string' ? bin : bin[command]!);
}

const require = createRequire(join(ROOT, 'package.json'));
