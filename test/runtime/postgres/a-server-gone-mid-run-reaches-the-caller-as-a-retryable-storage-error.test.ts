import net, { type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  ForwardingJournalStore,
  JournalStorageError,
  JournalWriteError,
  ModeltapeError,
  PostgresJournalStore,
  assertReplayWasNotBackstopped,
  type AppendOutcome,
  type JournalRecord,
  type PgPool,
} from 'modeltape/runtime';
import { parcelRuntime } from '../../support/parcel-agent.js';
import { describeOnPostgres, freshSchema, pgPool } from '../../support/postgres.js';

// What a caller of run() catches when the PostgreSQL server goes away in the middle of a run and
// stays away through the runtime's retries: the store's JournalStorageError, journal_io_error and
// retryable, naming the run to resume; once the server is back, resume finishes the run with each
// effect journaled once. The store reaches the server through a loopback relay, so that the server
// can go away for this store alone (the server may be shared, as CI's is): the test ends the
// store's backends with pg_terminate_backend and the relay refuses new connections, as a stopped
// server's port does.

/** A loopback TCP relay to the server. `cut()` ends every backend behind it and refuses connections; `mend()` lets them through again. */
class Relay {
  readonly #upstream: { host: string; port: number };
  readonly #admin: PgPool;
  #server: net.Server | undefined;
  readonly #upstreamSockets = new Set<Socket>();
  port = 0;

  constructor(upstream: { host: string; port: number }, admin: PgPool) {
    this.#upstream = upstream;
    this.#admin = admin;
  }

  async listen(port = 0): Promise<void> {
    const server = net.createServer((client) => this.#relay(client));
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    this.#server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** The backends behind the relay: the server sees each relayed connection come from its socket's local port. */
  async backends(condition = 'true'): Promise<number[]> {
    const ports = [...this.#upstreamSockets].map((socket) => socket.localPort).filter((port): port is number => port !== undefined);
    const found = await this.#admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[]) AND ${condition}`, [ports]);
    return found.rows.map((row) => row.pid);
  }

  async cut(): Promise<number> {
    // New connections are refused from here on; the ones under way end with their backends.
    this.#server?.close();
    this.#server = undefined;
    const pids = await this.backends();
    await this.#admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
    return pids.length;
  }

  mend(): Promise<void> {
    return this.listen(this.port);
  }

  close(): void {
    this.#server?.close();
    this.#server = undefined;
    for (const socket of this.#upstreamSockets) socket.destroy();
  }

  #relay(client: Socket): void {
    const upstream = net.connect(this.#upstream.port, this.#upstream.host);
    this.#upstreamSockets.add(upstream);
    upstream.on('close', () => this.#upstreamSockets.delete(upstream));
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}

/** At its `at`-th append, the server goes away while the append waits on the server, uncommitted (the test holds the run's advisory lock). */
class ServerGoesAway extends ForwardingJournalStore {
  appends = 0;
  cutBackends = 0;
  constructor(
    private readonly store: PostgresJournalStore,
    private readonly admin: PgPool,
    private readonly relay: Relay,
    private readonly at: number,
  ) {
    super(store);
  }
  override async append(records: readonly JournalRecord[]): Promise<AppendOutcome[]> {
    if (++this.appends !== this.at) return super.append(records);
    const holder = await this.admin.connect();
    const lock = [`modeltape-journal-run:${this.store.schema}:${records[0]!.runId}`];
    await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', lock);
    const appending = super.append(records);
    appending.catch(() => undefined);
    for (let waited = 0; (await this.relay.backends("wait_event_type = 'Lock'")).length === 0; waited += 10) {
      if (waited > 5000) throw new Error('the append never waited on the run’s lock');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    this.cutBackends = await this.relay.cut();
    await holder.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', lock);
    holder.release();
    return appending;
  }
}

describeOnPostgres('a PostgreSQL server gone in the middle of a run', (server) => {
  let admin: PgPool;
  beforeAll(async () => {
    admin = pgPool(server().url, { applicationName: 'server-gone-admin' });
  });
  afterAll(async () => {
    await admin?.end();
  });

  test('run() throws a retryable JournalStorageError (journal_io_error) naming the run, and once the server is back the run resumes to its answer', async () => {
    const direct = new URL(server().url);
    const relay = new Relay({ host: direct.hostname, port: Number(direct.port || 5432) }, admin);
    await relay.listen();
    const relayed = new URL(server().url);
    relayed.host = `127.0.0.1:${relay.port}`;
    const inner = await PostgresJournalStore.open({ connection: relayed.toString(), schema: freshSchema('gone') });
    // The third append journals the lookup's start: the model has answered, no tool has run.
    const store = new ServerGoesAway(inner, admin, relay, 3);
    const { runtime, runs } = parcelRuntime({ store });
    try {
      const caught = await runtime.run('parcel-desk', 'Where is parcel P-1?').catch((error: unknown) => error);
      expect(store.cutBackends).toBeGreaterThan(0);

      // What the caller catches: the store's own storage error, never a JournalWriteError around it.
      expect(caught).toBeInstanceOf(JournalStorageError);
      expect(caught).not.toBeInstanceOf(JournalWriteError);
      const failure = caught as JournalStorageError;
      expect(ModeltapeError.isInstance(failure)).toBe(true);
      expect([failure.code, failure.retryable, failure.problem, failure.operation, failure.runId]).toEqual(['journal_io_error', true, 'io', 'append', 'run-1']);
      expect(failure.sqliteCode).toMatch(/^(08\d{3}|57P0\d|E[A-Z]+|pg)$/);
      expect(failure.message).toContain('Check that the database server is up and reachable');
      expect(failure.message).toContain('then resume the run (runtime.resume)');
      expect(runs.lookup).toEqual([]);

      // The server is back. The store could write neither `interrupted` nor the lease's release
      // while it was away: the run is left running, leased to this runtime, which resumes it at once.
      await relay.mend();
      expect(await inner.getRun('run-1')).toMatchObject({ status: 'running' });
      expect((await inner.getLease('run-1'))?.owner).toBe('runtime-a');
      const outcome = await runtime.resume(failure.runId!);
      expect([outcome.status, outcome.output]).toEqual(['completed', 'Parcel P-1 is in Lyon; I told the customer.']);
      expect([runs.lookup.length, runs.send.length]).toEqual([1, 1]);
      const journal = await inner.read('run-1');
      const starts = journal.filter((record) => record.type === 'start').map((record) => record.effectKey);
      expect(new Set(starts).size).toBe(starts.length);
      expect(journal.map((record) => record.position)).toEqual(journal.map((_, index) => index + 1));
      expect(await inner.backstopRejections('run-1')).toBe(0);
      expect(await inner.getLease('run-1')).toBeUndefined();
      assertReplayWasNotBackstopped(await runtime.replay('run-1', 'strict'), 'replay after the server came back');
    } finally {
      await inner.close();
      relay.close();
    }
  });
});
