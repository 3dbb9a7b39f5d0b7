import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SessionReport } from '../../guard/internal.js';
import { closeTapeLines, readTape } from '../../recordings/internal.js';
import type { ReplayEngine } from '../../lookup/internal.js';
import type { UnusedRecordings } from '../core/proxy-core.js';

/** The recordings of one tape that no process of a run used. */
export interface UnusedOnTape {
  /** The tape as its first reader named it. */
  tape: string;
  mode: string;
  unused: UnusedRecordings;
}

/**
 * Which recordings a run left unused, per tape: the run's own proxy and every tape session opened
 * inside the command (openTape) on the same tape count together, so a tape two test files share
 * is unused only where neither used it. Tapes whose every recording was used are left out.
 */
export function unusedAcrossRun(
  own: { tape: string; mode: string; engine: ReplayEngine | undefined },
  sessions: readonly SessionReport[],
  cwd: string,
): UnusedOnTape[] {
  const tapes = new Map<string, { tape: string; mode: string; total: number; used: Set<number>; engine?: ReplayEngine }>();
  const take = (path: string, tape: string, mode: string, total: number, used: Iterable<number>, engine?: ReplayEngine): void => {
    let entry = tapes.get(path);
    if (entry === undefined) {
      entry = { tape, mode, total, used: new Set() };
      tapes.set(path, entry);
    }
    entry.total = Math.max(entry.total, total);
    if (engine !== undefined) entry.engine = engine;
    for (const line of used) entry.used.add(line);
  };
  if (own.engine !== undefined && (own.mode === 'replay' || own.mode === 'auto')) {
    const { total } = own.engine.unusedCount(0);
    if (total > 0) take(realPath(resolve(cwd, own.tape)), own.tape, own.mode, total, own.engine.usedLines(), own.engine);
  }
  for (const session of sessions) {
    if ((session.mode !== 'replay' && session.mode !== 'auto') || session.recordings === undefined || session.recordings === 0) continue;
    take(session.path ?? realPath(resolve(cwd, session.tape)), session.tape, session.mode, session.recordings, session.used ?? []);
  }
  const unused: UnusedOnTape[] = [];
  for (const [path, entry] of tapes) {
    const count = entry.total - entry.used.size;
    if (count <= 0) continue;
    unused.push({ tape: entry.tape, mode: entry.mode, unused: { count, total: entry.total, lines: firstUnusedLines(path, entry.used, entry.engine) } });
  }
  return unused;
}

// The first lines of recordings none used: from the engine that loaded the tape, else read again
// (lazily: only where each exchange is, not what it holds).
function firstUnusedLines(path: string, used: ReadonlySet<number>, engine: ReplayEngine | undefined): number[] {
  const lines: number[] = [];
  try {
    const all = engine !== undefined ? engine.entries().flatMap((entry) => (entry.line === undefined ? [] : [entry.line])) : linesOf(path);
    for (const line of all) {
      if (used.has(line)) continue;
      lines.push(line);
      if (lines.length === 5) break;
    }
  } catch {
    // A tape gone or changed since: the count stands without its lines.
  }
  return lines;
}

function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

// The line of each exchange of a tape; a large tape's descriptor is let go at once.
function linesOf(path: string): number[] {
  const { exchanges } = readTape(path, { lazy: true });
  closeTapeLines(exchanges);
  return exchanges.map(({ line }) => line);
}
