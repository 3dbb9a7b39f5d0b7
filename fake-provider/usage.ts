import type { AskedTurn } from '../providers/internal.js';

/**
 * A deterministic stand-in for a tokenizer: about four characters a token, never zero. The same
 * text always counts the same, so usage is reproducible, and no call is ever free.
 */
export function countTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Prompt tokens for a turn: its rendered prompt, a few per message, and its tool schemas. */
export function promptTokens(turn: AskedTurn): number {
  let tokens = countTokens(turn.prompt) + 3 * (turn.messages.length + (turn.system === undefined ? 0 : 1));
  for (const tool of turn.tools) tokens += countTokens(`${tool.name}${tool.description ?? ''}${JSON.stringify(tool.parameters ?? {})}`);
  if (turn.responseSchema) tokens += countTokens(JSON.stringify(turn.responseSchema.schema ?? {}));
  return tokens;
}
