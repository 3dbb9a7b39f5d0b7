/** `list` without repeats, in the order of first appearance. */
export function unique<T>(list: readonly T[]): T[] {
  return [...new Set(list)];
}
