import { sayRecordingNote, replayProblems, requestsSeen, type ReplayEvidence } from './assertions.js';

/** What a matcher returns to Vitest's and Jest's `expect`. */
/** What each matcher returns, as Vitest's and Jest's `expect.extend` take it. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

function matcher(checks: Parameters<typeof replayProblems>[1], what: string) {
  return function (this: { isNot?: boolean }, received: ReplayEvidence): MatcherResult {
    if (typeof received?.summary !== 'function') {
      return { pass: false, message: () => `expected a modeltape session (from openTape), got ${typeof received}` };
    }
    const problems = replayProblems(received, checks);
    const summary = received.summary();
    if (requestsSeen(summary) === 0) {
      // Nothing was checked, so neither the matcher nor its negation may pass.
      return { pass: this.isNot === true, message: () => `expected tape ${received.file} to be checked, but ${problems[0] ?? 'no request reached it'}` };
    }
    if (problems.length === 0 && this.isNot !== true) sayRecordingNote(received);
    return {
      pass: problems.length === 0,
      message: () =>
        problems.length === 0
          ? `expected tape ${received.file} not to have ${what}, but it did`
          : `expected tape ${received.file} to have ${what}:\n${problems.map((problem) => `  - ${problem.split('\n').join('\n    ')}`).join('\n')}`,
    };
  };
}

/**
 * Matchers for Vitest and Jest: `expect.extend(modeltapeMatchers)`, then
 * `expect(session).toHaveReplayedStrictly()`. Each fails when no request reached the session.
 *
 * The setup files `modeltape/vitest` and `modeltape/jest` do this, with the types; by hand, merge
 * {@link ModeltapeMatchers} into the runner's matchers.
 */
export const modeltapeMatchers = {
  /** No miss, nothing upstream, every recording used. */
  toHaveReplayedStrictly: matcher({ upstream: true, drift: true, consumed: true }, 'replayed strictly'),
  /** No connection to any upstream, nothing passed through or recorded, no request escaped. */
  toHaveNeverCalledUpstream: matcher({ upstream: true }, 'never called upstream'),
  /** Every recorded exchange was used. */
  toHaveConsumedAllExchanges: matcher({ consumed: true }, 'consumed every recorded exchange'),
  /** No request missed the tape. */
  toHaveNoDrift: matcher({ drift: true }, 'no drift'),
  /** A chaos replay: every planned fault fired (at least one), and the run still replayed strictly. */
  toHaveSurvivedChaos: matcher({ upstream: true, drift: true, consumed: true, chaos: true }, 'survived chaos'),
};

/** The matchers' types, for declaration merging into Vitest's or Jest's `Assertion`/`Matchers`. */
export interface ModeltapeMatchers<R = unknown> {
  toHaveReplayedStrictly(): R;
  toHaveNeverCalledUpstream(): R;
  toHaveConsumedAllExchanges(): R;
  toHaveNoDrift(): R;
  toHaveSurvivedChaos(): R;
}
