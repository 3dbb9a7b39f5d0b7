// The parent side of bench/servers/in-process.mjs, for bench/run.mjs and bench/peers.mjs: forks one
// in-process target in its own child, waits for its one result, checks it, and measures the rest
// of the machine's load over the child's measured seconds (it says when they start and end).
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLOCK_TICKS, readJiffies, readMachineBusy } from './cpu-time.mjs';
import { track } from './servers/children.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Runs one in-process target. `env` is the child's (TARGET, MEASURE, TAPE, SNAPSHOT, …: see
 * bench/servers/in-process.mjs); `seconds`, `warmup`, `concurrency` its run. `execArgv` for
 * --cpu-prof, `onSpawn(child)` to pin it. Resolves to a rate row (MEASURE=rate: rps, usPerCall,
 * cpuUs, meanLatencyUs, requests) or a cycle row (MEASURE=cycle: cycleUs, fakeUs, loadUs, fromTapeUs, …), each
 * with `problems` (empty when every answer was checked and counted), `foreignCores` and a `note`.
 */
export function runInProcess({ name, target, payload, env, seconds, warmup, concurrency, execArgv = [], onSpawn }) {
  const measure = env.MEASURE ?? 'rate';
  const child = fork(join(here, 'servers', 'in-process.mjs'), [], {
    env: { ...process.env, ...env, PAYLOAD: payload, SECONDS: String(seconds), WARMUP: String(warmup), CONCURRENCY: String(concurrency) },
    execArgv,
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  track(child);
  onSpawn?.(child);
  return new Promise((resolve, reject) => {
    let before;
    let after;
    let result;
    const timer = setTimeout(() => child.kill('SIGKILL'), (warmup + seconds + 60) * 1000);
    const sample = () => ({ busy: readMachineBusy(), parent: readJiffies(process.pid), child: readJiffies(child.pid), at: performance.now() });
    child.on('message', (message) => {
      if (message?.type === 'measuring') before = sample();
      if (message?.type === 'measured') after = sample();
      if (message?.type === 'result') {
        after ??= sample();
        result = message;
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (result === undefined) return reject(new Error(`${name} exited without a result (code ${code}, signal ${signal})\n${child.stderrText}`));
      const stderr = stderrOf(child);
      // The rest of the machine: busy ticks minus this process's and the child's.
      let foreignCores;
      const known = [before?.busy, after?.busy, before?.parent, after?.parent, before?.child, after?.child];
      if (known.every((value) => value !== undefined)) {
        const ours = after.parent - before.parent + (after.child - before.child);
        foreignCores = Math.max(0, after.busy - before.busy - ours) / CLOCK_TICKS / ((after.at - before.at) / 1000);
      }
      const row = { target, payload, foreignCores, stderr };
      if (result.error) return resolve({ ...row, ...(measure === 'cycle' ? failedCycle : failedRate), problems: [result.error.slice(0, 300)] });
      resolve({ ...row, ...(measure === 'cycle' ? cycleRow(result) : rateRow(result)) });
    });
  });
}

const failedRate = { rps: NaN, usPerCall: NaN, cpuUs: NaN, meanLatencyUs: NaN, requests: 0 };
const failedCycle = { cycleUs: NaN, cycleCpuUs: NaN, fakeUs: NaN, loadUs: NaN, fromTapeUs: NaN, cycles: 0, ratio: NaN };

function rateRow(result) {
  const problems = [];
  if (result.bad > 0) problems.push(`${result.bad} calls answered other than the first: ${result.firstBad}`);
  if (result.lastProblems.length > 0) problems.push(`the last call: ${result.lastProblems.join('; ')}`);
  if (result.closeProblems.length > 0) problems.push(`on close: ${result.closeProblems.join('; ')}`);
  if (result.answered !== result.sent) problems.push(`the target counted ${result.answered} answers for ${result.sent} calls`);
  if (result.calls === 0) problems.push('no call completed');
  const rps = result.calls / result.seconds;
  return {
    rps,
    usPerCall: 1e6 / rps,
    cpuUs: result.cpuUs / result.calls,
    meanLatencyUs: result.meanLatencyUs,
    requests: result.calls,
    problems,
    note: `body ${result.bodyBytes} bytes; ${result.answered} answers counted by the target, heap ${result.heapUsedMb.toFixed(0)} MB, RSS ${result.rssMb.toFixed(0)} MB at the end`,
  };
}

function cycleRow(result) {
  const problems = [...result.problems];
  if (result.cycle.count === 0) problems.push('no cycle completed');
  return {
    cycleUs: result.cycle.us,
    cycleCpuUs: result.cycle.cpuUs,
    fakeUs: result.fake.us,
    loadUs: result.load.us,
    fromTapeUs: result.fromtape?.us ?? NaN,
    cycles: result.cycle.count,
    // A session's cycle against FakeProvider.fromTape(tape) + 1 request (issue 36 §4), measured in
    // its child; fromTape's own cycle against a bare fake.fetch call plus the tape's load.
    ratio: result.fromtape === undefined ? result.cycle.us / (result.fake.us + result.load.us) : result.cycle.us / result.fromtape.us,
    problems,
    note: `${result.cycle.count} cycles, ${result.fake.count} fake.fetch calls, ${result.load.count} loads${result.fromtape === undefined ? '' : `, ${result.fromtape.count} fromTape cycles`}; cycle CPU ${result.cycle.cpuUs.toFixed(0)} µs`,
  };
}

function stderrOf(child) {
  // SnapshotAgent says once that it is experimental; that is not a problem of the run.
  const lines = child.stderrText
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '' && !/SnapshotAgent is experimental|--trace-warnings/.test(line));
  return lines.length > 0 ? lines.slice(0, 3).join(' | ') : undefined;
}
