import { appendFileSync, writeFileSync } from 'node:fs';
import { compileKeyRules, createHeader, serializeLine, type Exchange } from 'modeltape/recordings';

/** The default key rules, which the exchanges of `./exchanges.ts` are keyed under. */
export const RULES = compileKeyRules();
export const HEADER_LINE = serializeLine(createHeader(RULES.rules));

/** `[[[…]]]` nested `depth` levels, as JSON text (JSON.stringify cannot write it past ~10,000). */
export function nestedText(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/**
 * The canonical line of `exchange` with the JSON string `"<DEEP>"` (placed anywhere in it)
 * replaced by raw JSON text: how a line too deep for any writer is made.
 */
export function lineWith(exchange: Exchange, raw: string): string {
  const line = serializeLine(exchange);
  if (!line.includes('"<DEEP>"')) throw new Error('the exchange holds no "<DEEP>" placeholder');
  return line.replace('"<DEEP>"', () => raw);
}

export function writeTape(file: string, lines: readonly string[]): string {
  writeFileSync(file, HEADER_LINE);
  for (const line of lines) appendFileSync(file, line);
  return file;
}
