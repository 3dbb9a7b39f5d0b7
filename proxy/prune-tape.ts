import { renameSync, writeFileSync } from 'node:fs';
import { createHeader, loadTape, serializeTape, type CompiledKeyRules } from '../recordings/index.js';
import type { ReplayEngine } from '../replay/index.js';

/**
 * Rewrites a tape keeping only the exchanges this run used (replayed or recorded), in tape order,
 * with their ordinals renumbered per key. The header and its notes are kept. Written aside and
 * renamed into place, so a crash leaves the old tape whole. Returns how many exchanges went.
 * Run it when no other process is recording into the tape.
 */
export function pruneTape(file: string, engine: ReplayEngine, keyRules: CompiledKeyRules): number {
  const entries = engine.entries();
  const kept = entries.filter((entry) => entry.uses > 0);
  if (kept.length === entries.length) return 0;
  const { header } = loadTape(file);
  const ordinals = new Map<string, number>();
  const exchanges = kept.map(({ exchange }) => {
    const ordinal = ordinals.get(exchange.key) ?? 0;
    ordinals.set(exchange.key, ordinal + 1);
    return { ...exchange, ordinal };
  });
  const temporary = `${file}.${process.pid}.prune.tmp`;
  writeFileSync(temporary, serializeTape(header ?? createHeader(keyRules.rules), exchanges));
  renameSync(temporary, file);
  return entries.length - kept.length;
}
