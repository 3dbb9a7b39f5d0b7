/**
 * Ollama's `think` (api/types.go `ThinkValue`): `true`/`false`, or a level (`"low"`, `"medium"`,
 * `"high"`, `"max"`). A model with the `thinking` capability thinks unless told `false`
 * (server/routes.go sets an absent `think` to true for it); asking one without it is a 400.
 */
export const OLLAMA_THINK_LEVELS = ['high', 'medium', 'low', 'max'] as const;

/**
 * The model families that have the `thinking` capability, by the name before the tag. Ollama
 * reads the capability from the model's template; the fake, which has no templates, reads it
 * from the name: `qwen3:8b` and `fake-qwen3:latest` think, `llama3.2` does not.
 */
const THINKING_FAMILIES = new Set(['qwen3', 'qwq', 'deepseek-r1', 'deepseek-v3.1', 'gpt-oss', 'magistral', 'phi4-reasoning', 'cogito']);

/** Whether a model (as a request names it) has Ollama's `thinking` capability. */
export function ollamaModelThinks(model: string): boolean {
  const base = (model.split('/').pop() ?? model)
    .split(':')[0]!
    .replace(/^fake-/, '')
    .toLowerCase();
  return THINKING_FAMILIES.has(base);
}

/** Whether a `think` value turns thinking on: `true`, or any level. */
export function thinkTurnsOn(think: unknown): boolean {
  return think === true || (typeof think === 'string' && (OLLAMA_THINK_LEVELS as readonly string[]).includes(think));
}

/** Whether the answer to this body thinks: `think` on, or absent for a model that thinks. */
export function ollamaThinks(body: Record<string, unknown>): boolean {
  if (body.think === undefined || body.think === null) return typeof body.model === 'string' && ollamaModelThinks(body.model);
  return thinkTurnsOn(body.think);
}
