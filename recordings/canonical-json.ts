// The one file that imports fast-json-stable-stringify.
import stableStringifyModule from 'fast-json-stable-stringify';

const stableStringify = stableStringifyModule as unknown as (value: unknown) => string;

/**
 * JSON with object keys sorted at every depth and no whitespace. Arrays keep their order.
 * The same value always gives the same string, whatever order its keys were built in.
 */
export function canonicalJson(value: unknown): string {
  return stableStringify(value);
}
