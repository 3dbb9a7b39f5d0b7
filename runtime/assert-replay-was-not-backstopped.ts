import { ModeltapeError } from '../core/internal.js';
import type { RunOutcome } from './run-outcome.js';

/** Thrown by {@link assertReplayWasNotBackstopped}. */
export class BackstopAssertionError extends ModeltapeError {
  constructor(message: string) {
    super('replay_backstopped', message);
  }
}

/**
 * Fails when a replay leaned on the layer below it: the unique index had to reject a second start
 * of an effect during `outcome`'s invocation. A replay that reads every effect back never writes a
 * start, so the index never fires; an outcome can look right (same output, no duplicate in the
 * world) while only the index held, and only this assertion tells the two apart.
 * Also fails when the outcome is not a replay's, or saw no effect at all (it would prove nothing).
 *
 * Like every modeltape assertion, it takes what is checked first: `(outcome, label?)`. `label`
 * starts each message; it defaults to the run's id.
 */
export function assertReplayWasNotBackstopped(outcome: RunOutcome, label?: string): void {
  if (typeof outcome === 'string' || typeof outcome !== 'object' || outcome === null) {
    throw new TypeError(
      `assertReplayWasNotBackstopped(outcome, label?) takes the replay's outcome first; it was given ${typeof outcome === 'string' ? `the string ${JSON.stringify(outcome)}` : String(outcome)}. Earlier versions took the label first: swap the two arguments.`,
    );
  }
  label ??= `run ${outcome.runId}`;
  if (outcome.mode === 'run') {
    throw new BackstopAssertionError(
      `${label}: outcome of run ${outcome.runId} is a first run, not a replay. Pass the outcome of runtime.replay(runId, 'strict' | 'resume').`,
    );
  }
  if (outcome.effects.length === 0) {
    throw new BackstopAssertionError(
      `${label}: the replay of run ${outcome.runId} saw no effect at all, so it proves nothing. Replay a run that made model or tool calls.`,
    );
  }
  if (outcome.backstopHits > 0) {
    const backstopped = outcome.effects.filter((effect) => effect.status === 'backstopped');
    throw new BackstopAssertionError(
      `${label}: the ${outcome.mode} replay of run ${outcome.runId} leaned on the backstop: the unique index rejected ${outcome.backstopHits} second start${outcome.backstopHits === 1 ? '' : 's'} of an effect` +
        `${
          backstopped.length > 0
            ? ` (${backstopped
                .slice(0, 10)
                .map((effect) => `${effect.key}`)
                .join(', ')}${backstopped.length > 10 ? ', …' : ''})`
            : ''
        }.\n` +
        'Replay should have read those effects back from the journal and never tried to start them again. The outcome may still look right: only the index held.',
    );
  }
}
