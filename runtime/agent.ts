/** An agent: who it talks to, what it is told, what it may call, and what it must answer. */
export interface Agent {
  name: string;
  /** A key of the runtime's `providers`. */
  provider: string;
  model: string;
  system: string;
  /** The tools granted (names in the tool box). @default none */
  tools?: readonly string[];
  /** JSON Schema the final answer must match; the answer is then parsed JSON. */
  output?: Record<string, unknown>;
  /** @default 20 */
  maxSteps?: number;
  /** @default 1024 */
  maxTokens?: number;
}

/** An agent's `maxSteps` when it gives none. */
export const DEFAULT_MAX_STEPS = 20;
/** An agent's `maxTokens` when it gives none. */
export const DEFAULT_MAX_TOKENS = 1024;
