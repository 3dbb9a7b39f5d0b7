import { renameSync, rmSync } from 'node:fs';
import { loadTape, writeTapeFile } from '../../recordings/internal.js';
import type { ReplayEngine } from '../../lookup/internal.js';

/**
 * Drops from a tape the exchanges this run loaded and never used. The tape is read again first,
 * so lines another writer appended meanwhile (and those this run recorded) are kept; ordinals are
 * renumbered per key in tape order, the header and its notes kept. Written aside and renamed
 * into place, so a crash leaves the old tape whole. Returns how many exchanges went.
 */
export function pruneTape(file: string, engine: ReplayEngine): number {
  const unusedLines = new Set(engine.unused().flatMap((entry) => (entry.line === undefined ? [] : [entry.line])));
  if (unusedLines.size === 0) return 0;
  const { header, exchanges } = loadTape(file);
  const ordinals = new Map<string, number>();
  const kept = exchanges
    .filter(({ line }) => !unusedLines.has(line))
    .map(({ exchange }) => {
      const ordinal = ordinals.get(exchange.key) ?? 0;
      ordinals.set(exchange.key, ordinal + 1);
      return { ...exchange, ordinal };
    });
  const temporary = `${file}.${process.pid}.prune.tmp`;
  // A leftover of a crashed prune is replaced.
  rmSync(temporary, { force: true });
  writeTapeFile(temporary, header, kept);
  renameSync(temporary, file);
  return exchanges.length - kept.length;
}
