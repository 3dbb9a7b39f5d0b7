// Tape arguments as globs: `rekey`, `mutate` and `report` take 'tapes/**/*.jsonl' and expand it themselves.
import { existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { UsageError } from './arguments.js';

/**
 * The files a command's tape arguments name, in order, each once: a usage error names every
 * pattern that matches nothing (most likely a typo) before anything is read or written.
 */
export function expandTapeArguments(patterns: readonly string[], cwd: string, command: string, untouched: string): string[] {
  const files: string[] = [];
  const unmatched: string[] = [];
  for (const pattern of patterns) {
    const matched = expandGlob(pattern, cwd);
    if (matched.length === 0) unmatched.push(pattern);
    for (const file of matched) if (!files.includes(file)) files.push(file);
  }
  if (unmatched.length > 0) {
    throw new UsageError(
      `modeltape ${command}: no tape matches ${unmatched.map((pattern) => JSON.stringify(pattern)).join(', ')}${files.length > 0 ? ` (the other arguments match ${files.length} file${files.length === 1 ? '' : 's'}; ${untouched})` : ''}. Check the path, or quote a glob: 'tapes/**/*.jsonl'.`,
    );
  }
  return files;
}

const GLOB_CHARACTERS = /[*?[{]/;

/**
 * The files a pattern names: itself when a file has that name, else every file it matches,
 * sorted. Supports `*`, `?`, `[abc]`/`[!abc]`, `{a,b}` and `**` (any depth, names
 * starting with a dot and node_modules left out). Node 20 has no fs.glob, and one function does
 * not call for a dependency.
 */
export function expandGlob(pattern: string, cwd: string): string[] {
  // A file that exists under the very name is that file, brackets and all (`tape[1].jsonl`).
  if (existsSync(isAbsolute(pattern) ? pattern : join(cwd, pattern))) return [pattern];
  if (!GLOB_CHARACTERS.test(pattern)) return [];
  const segments = pattern.split('/');
  const matches: string[] = [];
  // `shown` is the path as the user wrote it (relative stays relative); `real` is where it is.
  const walk = (shown: string, real: string, index: number): void => {
    const segment = segments[index]!;
    const last = index === segments.length - 1;
    const child = (name: string): [string, string] => [shown === '' ? name : shown === '/' ? `/${name}` : `${shown}/${name}`, join(real, name)];
    if (segment === '**') {
      if (last) return;
      walk(shown, real, index + 1);
      for (const name of entries(real)) {
        if (name.startsWith('.') || name === 'node_modules') continue;
        const [nextShown, nextReal] = child(name);
        // Symbolic links to directories are not followed, so a link cycle cannot loop.
        if (lstatSync(nextReal).isDirectory()) walk(nextShown, nextReal, index);
      }
      return;
    }
    const names = GLOB_CHARACTERS.test(segment)
      ? entries(real).filter((name) => (!name.startsWith('.') || segment.startsWith('.')) && segmentPattern(segment).test(name))
      : [segment];
    for (const name of names) {
      const [nextShown, nextReal] = child(name);
      const stat = statSync(nextReal, { throwIfNoEntry: false });
      if (stat === undefined) continue;
      if (last && stat.isFile()) matches.push(nextShown);
      else if (!last && stat.isDirectory()) walk(nextShown, nextReal, index + 1);
    }
  };
  if (isAbsolute(pattern)) walk('/', '/', 1);
  else walk('', cwd, 0);
  return [...new Set(matches)].sort();
}

function entries(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

/** One path segment of a glob as a regular expression. */
function segmentPattern(segment: string): RegExp {
  let source = '';
  for (let index = 0; index < segment.length; index++) {
    const char = segment[index]!;
    if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const end = segment.indexOf(']', index + 2);
      if (end < 0) {
        source += '\\[';
        continue;
      }
      const body = segment.slice(index + 1, end);
      source += `[${body.startsWith('!') ? `^${body.slice(1)}` : body.replace(/^\^/, '\\^')}]`;
      index = end;
    } else if (char === '{') {
      const end = segment.indexOf('}', index);
      if (end < 0) {
        source += '\\{';
        continue;
      }
      source += `(?:${segment
        .slice(index + 1, end)
        .split(',')
        .map((choice) => choice.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|')})`;
      index = end;
    } else source += char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
