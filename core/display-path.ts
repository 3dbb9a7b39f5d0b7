import { isAbsolute, relative, resolve } from 'node:path';

/**
 * A path as messages, summaries and reports show it: relative to the working directory when it
 * lies inside it (`tapes/a.jsonl`, however it was given), absolute when it lies outside.
 */
export function displayPath(file: string, cwd: string = process.cwd()): string {
  const absolute = resolve(cwd, file);
  const inside = relative(cwd, absolute);
  if (inside === '') return '.';
  return inside.startsWith('..') || isAbsolute(inside) ? absolute : inside;
}
