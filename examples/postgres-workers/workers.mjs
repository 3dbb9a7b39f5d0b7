// `npm run example:workers`: workers on several processes sharing runs on one PostgreSQL journal.
// Four worker processes drive twelve runs; one of them, driving a run, is killed with SIGKILL at a
// random moment, again and again (the moments and the victims drawn from a seed), and replaced;
// the others take its runs over once its lease expires. An operator (this process) approves each send a kill left in doubt. At
// the end every run must be complete with every invariant holding:
//   1. every run completed, with the agent's answer;
//   2. no send ran twice on its own: each ran once, plus once per approval to run it again;
//   3. no approval is left pending or approved and unused;
//   4. no lease is left, but for one a worker held when it was killed after its run had finished
//      (the kill fell between the run's last write and the lease's release: an expired row that
//      nothing waits on, since no worker drives a finished run);
//   5. the backstop refused nothing: no effect was started twice;
// PostgreSQL: MODELTAPE_PG_URL, or a server started from this machine's PostgreSQL binaries.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PostgresJournalStore, Runtime } from 'modeltape/runtime';
import { postgresBin, startLocalPostgres } from './local-postgres.mjs';
import { ANSWER, agent } from './parcel-desk.mjs';

const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));

// mulberry32: the kill schedule from the seed, the same every time.
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs the fleet and checks the invariants. Resolves with what happened and every broken
 * invariant (`violations`, empty when all held).
 */
export async function runFleet({ url, schema, runs = 12, workers = 4, kills = 8, seed = 1, timeoutMs = 60_000, log = () => undefined }) {
  const dir = mkdtempSync(join(tmpdir(), 'modeltape-workers-'));
  const effects = join(dir, 'effects.jsonl');
  writeFileSync(effects, '');
  writeFileSync(join(dir, 'drives.jsonl'), '');
  const store = await PostgresJournalStore.open({ connection: url, schema });
  const live = new Map();
  try {
    const operator = Runtime.build({
      store,
      providers: { openai: { api: 'openai-chat', fetch: () => Promise.reject(new Error('the operator calls no model')) } },
      owner: 'operator',
    });
    const started = Date.now();
    const runIds = Array.from({ length: runs }, (_, index) => `run-${index + 1}`);
    for (const runId of runIds)
      await store.createRun({
        runId,
        agent: agent.name,
        input: `Where is parcel P-1? (${runId})`,
        status: 'running',
        result: null,
        createdAt: Date.now(),
        updatedAt: Date.now(),
      });
    let spawned = 0;
    const failures = [];
    const start = () => {
      const name = `worker-${++spawned}`;
      const child = spawn(process.execPath, [WORKER, url, schema, name, effects, JSON.stringify(runIds)], { stdio: ['ignore', 'inherit', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
      exited.then(({ code, signal }) => {
        live.delete(name);
        if (signal !== 'SIGKILL' && code !== 0) failures.push(`${name} exited ${code ?? signal}: ${stderr.trim()}`);
      });
      live.set(name, { child, exited });
    };
    for (let index = 0; index < workers; index++) start();
    const draw = random(seed);
    const killed = [];
    let approved = 0;
    // The operator: every decision it makes is read by whichever worker takes the run next.
    const approving = (async () => {
      while (Date.now() - started < timeoutMs) {
        let open = 0;
        for (const runId of runIds) {
          const run = await store.getRun(runId);
          if (run.status !== 'completed' && run.status !== 'failed' && run.status !== 'cancelled') open++;
          for (const approval of await store.approvals(runId))
            if (approval.decision === 'pending') {
              // The list is a look at one moment: by the time the operator decides, the approval
              // may be decided and used already (seen once in a few dozen runs). A decision is
              // final, so that one is left as it is; the invariants below still judge the run.
              try {
                await operator.approve(approval.approvalId);
              } catch (error) {
                if (error?.code !== 'approval_already_decided') throw error;
                log(`operator found ${approval.approvalId} decided already: ${error.message}`);
                continue;
              }
              approved++;
              log(`operator approved ${approval.approvalId} (${approval.kind})`);
            }
        }
        if (open === 0) return;
        await pause(25);
      }
    })();
    // Awaited below; a failure meanwhile must not go unhandled.
    approving.catch(() => undefined);
    for (let index = 0; index < kills; index++) {
      await pause(20 + Math.floor(draw() * 80));
      // The victim is a worker driving a run (holding its lease), chosen from the seed: a kill
      // that lands on a worker still starting up would prove nothing.
      let holders = [];
      for (let waited = 0; holders.length === 0 && waited < 2000; waited += 10) {
        const leases = await Promise.all(runIds.map((runId) => store.getLease(runId)));
        holders = [...new Set(leases.filter((lease) => lease !== undefined && live.has(lease.owner)).map((lease) => lease.owner))].sort();
        if (holders.length === 0) await pause(10);
      }
      if (holders.length === 0) break;
      const victim = holders[Math.floor(draw() * holders.length)];
      live.get(victim).child.kill('SIGKILL');
      await live.get(victim)?.exited;
      killed.push(victim);
      log(`killed ${victim} with SIGKILL; starting another`);
      start();
    }
    await approving;
    // The workers exit once every run is finished; the deadline's timer is cleared when they do, or
    // it would hold the process open until the deadline.
    let deadline;
    await Promise.race([
      Promise.all([...live.values()].map((worker) => worker.exited)),
      new Promise((resolve) => (deadline = setTimeout(resolve, Math.max(0, timeoutMs - (Date.now() - started))))),
    ]);
    clearTimeout(deadline);
    for (const worker of live.values()) worker.child.kill('SIGKILL');

    // The invariants, read from the journal and the outbox.
    const violations = [...failures];
    const drives = readFileSync(join(dir, 'drives.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    // A run more than one worker drove: one was killed driving it, and another took it over.
    const takenOver = runIds.filter((runId) => new Set(drives.filter((drive) => drive.runId === runId).map((drive) => drive.worker)).size > 1).length;
    const sends = readFileSync(effects, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const results = [];
    for (const runId of runIds) {
      const run = await store.getRun(runId);
      results.push(run);
      if (run.status !== 'completed' || run.result !== ANSWER)
        violations.push(`1. ${runId} is ${run.status} (${JSON.stringify(run.result)}), not completed with the answer`);
      const approvals = await store.approvals(runId);
      for (const approval of approvals)
        if (approval.decision === 'pending' || approval.decision === 'approved') violations.push(`3. ${approval.approvalId} is left ${approval.decision}`);
      const journal = await store.read(runId);
      for (const start of journal.filter((record) => record.type === 'start' && record.effectKey.endsWith('.tool'))) {
        const operationId = `${runId}/${start.effectKey}`;
        const ran = sends.filter((send) => send.operationId === operationId).length;
        const rerunsApproved = approvals.filter((approval) => approval.effectKey === start.effectKey && approval.decision === 'consumed').length;
        if (ran > 1 + rerunsApproved) violations.push(`2. ${operationId} was sent ${ran} times with ${rerunsApproved} approval(s) to send again`);
      }
      const lease = await store.getLease(runId);
      if (lease !== undefined && !(killed.includes(lease.owner) && run.status === 'completed'))
        violations.push(`4. ${runId} still has a lease, held by ${lease.owner}${killed.includes(lease.owner) ? '' : ', which was not killed'}`);
      const rejected = await store.backstopRejections(runId);
      if (rejected > 0) violations.push(`5. the backstop refused ${rejected} start(s) of ${runId}`);
    }
    return { runs: results, sends: sends.length, approved, killed, takenOver, workers: spawned, elapsedMs: Date.now() - started, violations };
  } finally {
    // Whatever failed, no worker, pool or folder is left behind.
    for (const worker of live.values()) worker.child.kill('SIGKILL');
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let url = process.env.MODELTAPE_PG_URL;
  let server;
  if (!url) {
    const bin = postgresBin();
    if (bin === undefined) {
      console.error(
        'example:workers needs PostgreSQL: set MODELTAPE_PG_URL to a server, or install PostgreSQL (its initdb and pg_ctl are looked for in /usr/lib/postgresql/*/bin and PATH).',
      );
      process.exit(1);
    }
    server = await startLocalPostgres(bin);
    url = server.url;
  }
  try {
    const seed = Number(process.env.SEED ?? 1);
    const result = await runFleet({ url, schema: `workers_demo_${Date.now()}`, seed, log: (line) => console.log(`  ${line}`) });
    console.log(
      `${result.runs.filter((run) => run.status === 'completed').length} of ${result.runs.length} runs completed by ${result.workers} worker processes (${result.killed.length} killed with SIGKILL, ${result.takenOver} runs taken over from a killed one), ${result.sends} sends, ${result.approved} approved re-sends, in ${result.elapsedMs} ms (seed ${seed})`,
    );
    if (result.violations.length > 0) {
      console.log(`invariants broken:\n${result.violations.map((violation) => `  ✗ ${violation}`).join('\n')}`);
      process.exitCode = 1;
    } else console.log('every invariant held: no send ran twice on its own, no approval left or used twice, no lease left, nothing backstopped');
  } finally {
    await server?.stop();
  }
}
