import { LeaseLostError, RunLeasedError } from './errors.js';
import { type EffectJournal, isStoreFailure } from './effect-journal.js';
import { SimulatedCrash } from './faulty.js';
import type { Clock } from './ids.js';
import type { JournalStore } from './journal-store.js';

/** What one invocation's lease on its run is taken with. */
export interface RunLeaseSetup {
  store: JournalStore;
  journal: EffectJournal;
  runId: string;
  /** The runtime's lease-holder name. */
  owner: string;
  clock: Clock;
  ttlMs: number;
  heartbeatMs: number;
}

/**
 * One invocation's lease on its run: taken (or refused with {@link RunLeasedError}), kept alive by
 * a heartbeat, confirmed before a call runs again, and released at the end, unless the process
 * "died" (a {@link SimulatedCrash}) or another runtime took the run.
 */
export class RunLease {
  readonly #setup: RunLeaseSetup;
  #heartbeat: NodeJS.Timeout | undefined;
  #held = false;
  #inDoubt = false;
  #lost = false;
  #crashed = false;

  constructor(setup: RunLeaseSetup) {
    this.#setup = setup;
  }

  /** The store granted the lease to this invocation. */
  get held(): boolean {
    return this.#held;
  }

  /** The heartbeat (or a confirmation) found the lease another runtime's. */
  get lost(): boolean {
    return this.#lost;
  }

  /** The process "died" (a simulated crash): nothing more is written, the lease is left to expire. */
  get crashed(): boolean {
    return this.#crashed;
  }

  markCrashed(): void {
    this.#crashed = true;
  }

  /** Takes the run's lease (or throws {@link RunLeasedError}) and keeps it alive with a heartbeat. */
  async acquire(): Promise<void> {
    const { store, journal, runId, owner, clock, ttlMs, heartbeatMs } = this.#setup;
    const now = clock();
    const result = await journal
      .write('the lease', () => store.acquireLease(runId, owner, now + ttlMs, now))
      .catch((error: unknown) => {
        // The lease write failed: it may have been stored all the same (a release is then tried).
        if (isStoreFailure(error)) this.#inDoubt = true;
        throw error;
      });
    if (!result.acquired) throw new RunLeasedError(runId, result.lease.owner, result.lease.expiresAt, now);
    this.#held = true;
    this.#heartbeat = setInterval(() => {
      if (this.#crashed || this.#lost) return;
      store.renewLease(runId, owner, clock() + ttlMs).then(
        (renewed) => {
          if (!renewed) this.#lost = true;
        },
        (error: unknown) => {
          // A dead process, or a store handle closed under it: the heartbeat stops with it.
          if (error instanceof SimulatedCrash) this.#crashed = true;
          if (error instanceof SimulatedCrash || (error as { code?: string })?.code === 'journal_closed') clearInterval(this.#heartbeat);
        },
      );
    }, heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Before a call runs again after an interruption: this runtime must still hold the run. */
  async confirm(): Promise<void> {
    if (!this.#held) return;
    const { store, journal, runId, owner, clock, ttlMs } = this.#setup;
    const held = await journal.write('the lease renewal', () => store.renewLease(runId, owner, clock() + ttlMs));
    if (!held) {
      this.#lost = true;
      throw new LeaseLostError(runId, owner);
    }
  }

  /** Stops the heartbeat and releases the lease, unless the process died or the lease is lost. */
  async release(): Promise<void> {
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    if ((this.#held || this.#inDoubt) && !this.#crashed && !this.#lost) {
      const { store, journal, runId, owner } = this.#setup;
      // A release that keeps failing is left to expire; a crash while releasing is still a crash.
      await journal
        .write('the lease release', () => store.releaseLease(runId, owner))
        .catch((error: unknown) => {
          if (error instanceof SimulatedCrash) throw error;
        });
    }
  }
}
