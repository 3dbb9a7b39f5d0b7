/** A value JSON can hold. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** True for a non-null object that is not an array: a JSON object, or any record of fields. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON text parsed, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
