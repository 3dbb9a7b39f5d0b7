/**
 * The named points of the loop. `AfterStepStarted`: a step (model turn) began. `AfterDecided`: the
 * model's answer is journaled. `AfterAllowed`: the policy (or an approval) allowed a tool call.
 * `AfterToolStarted`: the call's start is journaled. `AfterToolEffect`: the tool returned (or
 * threw), its end not yet journaled. `AfterToolFinished`: its end is journaled. `AfterResumed`: a
 * resume holds the lease. `AfterInterrupted`: an interrupted call waits for an operator.
 */
export const RUNTIME_POINTS = [
  'AfterStepStarted',
  'AfterDecided',
  'AfterAllowed',
  'AfterToolStarted',
  'AfterToolEffect',
  'AfterToolFinished',
  'AfterResumed',
  'AfterInterrupted',
] as const;
export type RuntimePoint = (typeof RUNTIME_POINTS)[number];

/** Where the loop is, as the `onPoint` hook is told. */
export interface PointDetail {
  runId: string;
  step: number;
  /** The effect the point is about (the model call, or the tool call). */
  key?: string;
  tool?: string;
  /** False while the loop is reading the journal back (the point was passed live before). */
  live: boolean;
  /** The runtime's lease-holder name. */
  owner: string;
}
