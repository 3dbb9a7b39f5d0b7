// Tape arguments as globs: `rekey`, `mutate` and `report` take 'tapes/**/*.jsonl' and expand it themselves.
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { globSync, isDynamicPattern } from 'tinyglobby';
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

/**
 * The files a pattern names: itself when a file has that name, else every file it matches,
 * sorted, as tinyglobby (Vite's matcher) expands it: `*`, `?`, `[abc]`/`[!abc]`, `{a,b}` and `**`
 * (any depth). Names starting with a dot are matched only by a pattern that starts them with a
 * dot, node_modules only by a pattern that names it, and symbolic links to folders are not
 * followed (a link cycle cannot loop). On Windows a pattern is read as its shells pass it: `\`
 * separates folders, and single quotes (which cmd.exe leaves in) are taken off.
 */
export function expandGlob(pattern: string, cwd: string, platform: NodeJS.Platform = process.platform): string[] {
  const written = platform === 'win32' ? asWrittenOnWindows(pattern) : pattern;
  // A file that exists under the very name is that file, brackets and all (`tape[1].jsonl`).
  if (existsSync(isAbsolute(written) ? written : join(cwd, written))) return [written];
  if (!isDynamicPattern(written)) return [];
  const namesNodeModules = written.split('/').includes('node_modules');
  const found = globSync(written, {
    cwd,
    absolute: isAbsolute(written),
    dot: false,
    onlyFiles: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    ignore: namesNodeModules ? [] : ['**/node_modules/**'],
  });
  return [...new Set(found)].sort();
}

// `'tapes\**\*.jsonl'` typed in cmd.exe reaches the program quotes and all.
function asWrittenOnWindows(pattern: string): string {
  const unquoted = pattern.length >= 2 && pattern.startsWith("'") && pattern.endsWith("'") ? pattern.slice(1, -1) : pattern;
  return unquoted.replaceAll('\\', '/');
}
