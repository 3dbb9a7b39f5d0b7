// The parent side of child-ipc.mjs: benchmark servers started with fork, tracked, and always
// stopped, by bench/run.mjs and bench/peers.mjs alike.
import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';

/** Every child still running; killed on exit. */
export const children = new Set();

/**
 * Forks `script` and resolves once it says `ready` (with its port as `child.port`), or rejects
 * with its stderr when it exits first or takes over 10 s. `onReady(child)` runs before it resolves.
 */
export function startChild(script, env, { name = script, execArgv = [], onReady } = {}) {
  const child = fork(script, [], { env: { ...process.env, ...env }, execArgv, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
  track(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 10 s\n${child.stderrText}`)), 10_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})\n${child.stderrText}`));
    });
    child.on('message', (message) => {
      if (message?.type === 'ready') {
        clearTimeout(timer);
        onReady?.(child);
        child.port = message.port;
        resolve(child);
      }
    });
  });
}

/** Tracks a forked child: kept in {@link children} while it runs, its stderr (20 KB) in `child.stderrText`. */
export function track(child) {
  children.add(child);
  child.stderrText = '';
  child.stderr.on('data', (chunk) => {
    if (child.stderrText.length < 20_000) child.stderrText += chunk;
  });
  child.once('exit', () => children.delete(child));
  return child;
}

/** Asks a child to stop (it closes its server, reports, exits); kills it if it does not. Resolves to its summary. */
export function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let summary;
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('message', (message) => {
      if (message?.type === 'stopped') summary = message.summary;
    });
    child.once('exit', () => {
      clearTimeout(kill);
      resolve(summary);
    });
    try {
      child.send({ type: 'stop' });
    } catch {
      child.kill('SIGKILL');
    }
  });
}

/** On exit, SIGINT or SIGTERM: kills every child left and removes the folder `dir()` names, if any. */
export function cleanUpOnExit(dir) {
  const cleanup = () => {
    for (const child of children) {
      try {
        child.kill('SIGKILL');
      } catch {}
    }
    children.clear();
    const folder = dir();
    if (folder) rmSync(folder, { recursive: true, force: true });
  };
  process.on('exit', cleanup);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      cleanup();
      process.exit(130);
    });
  }
}
