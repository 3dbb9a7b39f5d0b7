import type { Answer, ResolvedFinish } from './answer.js';
import type { Failure } from './failures.js';
import type { Step } from './script.js';

/**
 * How the fake answers one model turn, before any wire format: the script's answer (or an
 * unscripted one), a scripted failure, or the fake's own refusal (the script ran out, the step does
 * not fit the request). Every surface renders the same decision, so the script is consulted one way.
 */
export type TurnDecision =
  | {
      kind: 'answer';
      /** One answer per choice the request asks for (OpenAI chat's `n`; one everywhere else). */
      answers: Answer[];
      finish: ResolvedFinish | undefined;
      /** The step that answered; undefined when the fake answered unscripted. */
      step: Step | undefined;
    }
  | {
      kind: 'failure';
      failure: Failure;
      /** What a broken stream starts to send, or a delayed turn sends in the end. */
      partial: Answer;
      step: Step;
    }
  | {
      kind: 'refused';
      type: 'fake_script_exhausted' | 'fake_answer_does_not_fit';
      /** The message, before secrets are masked. */
      message: string;
    };
