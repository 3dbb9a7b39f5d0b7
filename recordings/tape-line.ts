import { canonicalJson } from './canonical-json.js';
import { TAPE_SCHEMA_VERSION, type Exchange, type KeyRules, type TapeHeader } from './tape-format.js';
import { WRITTEN_BY } from './version.js';

/** The canonical bytes of one tape line: sorted keys, no whitespace, one trailing newline. */
export function serializeLine(value: TapeHeader | Exchange): string {
  return `${canonicalJson(value)}\n`;
}

/** The header a new tape starts with. Notes (fields starting with `_`) are kept. */
export function createHeader(keyRules: KeyRules, notes: Record<`_${string}`, unknown> = {}): TapeHeader {
  return { ...notes, schemaVersion: TAPE_SCHEMA_VERSION, writtenBy: WRITTEN_BY, keyRules };
}

/** "POST /v1/chat/completions (openai)": how messages name an exchange. */
export function describeExchange(exchange: Pick<Exchange, 'upstream' | 'request'>): string {
  return `${exchange.request.method} ${exchange.request.path} (${exchange.upstream})`;
}

/** A whole tape in canonical form: the header line, then one line per exchange. */
export function serializeTape(header: TapeHeader, exchanges: Iterable<Exchange>): string {
  let text = serializeLine(header);
  for (const exchange of exchanges) text += serializeLine(exchange);
  return text;
}
