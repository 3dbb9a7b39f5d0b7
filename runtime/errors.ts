import { ModeltapeError } from '../recordings/index.js';
import { formatDifferences, type Difference } from '../replay/index.js';
import type { EffectKind, Json } from './journal-store.js';

/** An effect as the code asked for it, or as the journal holds it. */
export interface EffectRequest {
  key: string;
  kind: EffectKind;
  data: Json;
}

/**
 * Replay met code that does not do what the journal says it did: it asked for an effect the
 * journal does not hold (`extra`), in another order or with other arguments (`mismatch`), or it
 * ended before reaching a recorded effect (`unreached`).
 */
export class NondeterminismError extends ModeltapeError {
  readonly runId: string;
  readonly reason: 'extra' | 'mismatch' | 'unreached';
  readonly recorded: EffectRequest | undefined;
  readonly requested: EffectRequest | undefined;
  readonly differences: Difference[];

  constructor(runId: string, reason: 'extra' | 'mismatch' | 'unreached', recorded: EffectRequest | undefined, requested: EffectRequest | undefined, differences: Difference[] = []) {
    const lines: string[] = [];
    if (reason === 'extra') {
      lines.push(`Replay of run ${runId} asked for effect ${requested!.key} (${requested!.kind}), which the journal does not hold: the run recorded fewer effects.`);
      lines.push(`  new:      ${requested!.key} ${summarize(requested!.data)}`);
    } else if (reason === 'unreached') {
      lines.push(`Replay of run ${runId} ended without reaching recorded effect ${recorded!.key} (${recorded!.kind}): the code now does less than it did.`);
      lines.push(`  recorded: ${recorded!.key} ${summarize(recorded!.data)}`);
    } else {
      lines.push(
        recorded!.key === requested!.key && recorded!.kind === 'policy'
          ? `Replay of run ${runId}: the policy now decides ${requested!.key} otherwise than it did (evaluated again on the inputs the journal holds).`
          : recorded!.key === requested!.key
          ? `Replay of run ${runId} asked for effect ${requested!.key} (${requested!.kind}) with other arguments than the journal holds.`
          : `Replay of run ${runId} asked for ${requested!.key} (${requested!.kind}) where the journal holds ${recorded!.key} (${recorded!.kind}): the effects come in another order.`,
      );
      lines.push(`  recorded: ${recorded!.key} ${summarize(recorded!.data)}`);
      lines.push(`  new:      ${requested!.key} ${summarize(requested!.data)}`);
      if (differences.length > 0) lines.push(...formatDifferences(differences).map((line) => `  ${line}`));
    }
    lines.push(
      reason === 'mismatch' && recorded?.kind === 'policy' && recorded.key === requested?.key
        ? 'The policy changed since the run was recorded: recheck(store, runId, policy) lists every evaluation it now decides otherwise.'
        : 'The code, its prompts or its tools changed since the run was recorded. Record the run again, or restore what changed.',
    );
    super('nondeterminism', lines.join('\n'));
    this.runId = runId;
    this.reason = reason;
    this.recorded = recorded;
    this.requested = requested;
    this.differences = differences;
  }
}

/** Another runtime holds the run's lease. */
export class RunLeasedError extends ModeltapeError {
  readonly runId: string;
  readonly owner: string;
  readonly expiresAt: number;
  constructor(runId: string, owner: string, expiresAt: number, now: number) {
    super(
      'run_leased',
      `Run ${runId} is leased to runtime ${owner} until ${instant(expiresAt)} (${Math.max(0, expiresAt - now)} ms from now).\nWait for that runtime to finish or for the lease to expire, then resume the run.`,
    );
    this.runId = runId;
    this.owner = owner;
    this.expiresAt = expiresAt;
  }
}

/** The runtime lost its lease (it expired and another runtime took the run) while running. */
export class LeaseLostError extends ModeltapeError {
  readonly runId: string;
  constructor(runId: string, owner: string) {
    super('lease_lost', `Runtime ${owner} lost its lease on run ${runId} (it expired and was not renewed in time): it stopped, writing nothing more. Raise the lease TTL if steps take longer.`);
    this.runId = runId;
  }
}

export class RunNotFoundError extends ModeltapeError {
  readonly runId: string;
  constructor(runId: string) {
    super('run_not_found', `Run ${runId} is not in this journal. Check the run id and that the runtime opened the same journal file.`);
    this.runId = runId;
  }
}

/** A journal write kept failing, even after checking what had been stored and retrying. */
export class JournalWriteError extends ModeltapeError {
  constructor(what: string, attempts: number, cause: unknown) {
    super(
      'journal_write_failed',
      `Could not write ${what} to the journal after ${attempts} attempts: ${(cause as Error)?.message ?? String(cause)}\nThe runtime stopped there. Nothing after it was performed, and the run is left as the journal holds it. Resume it (runtime.resume) once the store is healthy; an effect that started and was not recorded as ended will be settled then, never run blindly.`,
      { cause },
    );
  }
}

/** The model provider answered with an error status, or with something that is not a model answer. */
export class ModelCallError extends ModeltapeError {
  readonly status: number | undefined;
  constructor(message: string, status?: number, cause?: unknown) {
    super('model_call_failed', message, { cause });
    this.status = status;
  }
}

function summarize(data: Json): string {
  const text = JSON.stringify(data);
  return text.length > 160 ? `${text.slice(0, 100)}…${text.slice(-40)} (${text.length} chars)` : text;
}

function instant(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `clock reading ${ms}` : date.toISOString();
}
