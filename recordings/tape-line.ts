import { sortLineKeys } from './canonical-json.js';
import { JsonTooDeepError, exchangeTooDeepAt } from './json-depth.js';
import { TAPE_SCHEMA_VERSION, type Exchange, type KeyRules, type TapeHeader } from './tape-format.js';
import { WRITTEN_BY } from './version.js';

/**
 * The canonical bytes of one tape line: the format's own fields sorted at every depth, recorded
 * JSON payloads (`request.body.json`, `response.body.json`, and an event stream frame's
 * `event.headers`, `event.json`, `event.bytes.json`) in the order they were recorded,
 * no whitespace, one trailing newline. Loading a line and serializing it again gives the same
 * bytes. Throws JsonTooDeepError (code `too_deep`) for an exchange whose JSON nests deeper
 * than MAX_JSON_DEPTH (512) levels.
 *
 * A payload's own order survives only as far as JavaScript keeps it (integer-like names come
 * first); a response body's `layout` is a field of the format, sorted like the others, and holds
 * the recorded order of such objects as arrays (`keyOrder`), which are never reordered.
 */
export function serializeLine(value: TapeHeader | Exchange): string {
  // Deeper JSON would overflow the stack here, or in every reader after.
  if ('request' in value) {
    const path = exchangeTooDeepAt(value);
    if (path !== undefined) throw new JsonTooDeepError(describeExchange(value), path);
  }
  // Recorded payloads keep the key order they arrived in (replay then serves the upstream's
  // order); every field of the format itself is sorted.
  return `${JSON.stringify(sortLineKeys(value))}\n`;
}

/** The `recordedAt` of an exchange recorded at `date`: its UTC day, `YYYY-MM-DD`. */
export function recordedAtOf(date: Date): string {
  return date.toISOString().slice(0, 10);
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
