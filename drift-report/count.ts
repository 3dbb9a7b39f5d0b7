// Counting words shared by the page and its view of a request.

/** A number as digits, whatever the report holds in its place. */
export function number(value: number): string {
  return Number(value).toLocaleString('en-US');
}

/** `1 request`, `2 requests`: a number and its noun, plural unless one. */
export function count(value: number, noun: string): string {
  return `${number(value)} ${noun}${value === 1 ? '' : 's'}`;
}
