import { renameSync, writeFileSync } from 'node:fs';
import { canonicalJson, compileKeyRules, createHeader, exchangeKey, loadTape, serializeTape, type Exchange } from '../recordings/index.js';
import { loadConfig } from '../proxy/index.js';
import { describeFlags, parseArguments, UsageError, type FlagSpec } from './arguments.js';
import type { CommandIo } from './io.js';

const FLAGS: readonly FlagSpec[] = [
  { name: 'config', kind: 'string', value: 'FILE', description: 'the rules to apply (default modeltape.config.json, if present; else the default rules)' },
  { name: 'dry-run', kind: 'boolean', description: 'report what would change, write nothing' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const REKEY_USAGE = `Usage: modeltape rekey FILE [--config FILE] [--dry-run]

Re-derives every key of a tape under the current key rules (the normalizers and key headers of
modeltape.config.json, or the defaults), renumbers ordinals, writes the rules into the header,
and reports which keys changed. Every line keeps the inputs of its key, so no request is lost.

${describeFlags(FLAGS)}`;

export async function rekeyCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'rekey');
  if (parsed.flags.help === true) {
    io.stdout.write(`${REKEY_USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length !== 1) throw new UsageError('modeltape rekey needs exactly one tape file: modeltape rekey FILE');
  const file = parsed.positionals[0]!;
  const { config } = loadConfig(parsed.flags.config as string | undefined);
  const rules = compileKeyRules({ headers: config.keyHeaders ?? compileKeyRules().rules.headers, normalizers: config.normalizers ?? [] });
  const tape = loadTape(file);
  const ordinals = new Map<string, number>();
  const changed: Array<{ line: number; from: string; to: string }> = [];
  const exchanges: Exchange[] = tape.exchanges.map(({ exchange, line }) => {
    const key = exchangeKey(exchange.upstream, exchange.request, rules);
    const ordinal = ordinals.get(key) ?? 0;
    ordinals.set(key, ordinal + 1);
    if (key !== exchange.key) changed.push({ line, from: exchange.key, to: key });
    return { ...exchange, key, ordinal };
  });
  const rulesChanged = canonicalJson(tape.header.keyRules) !== canonicalJson(rules.rules);
  const merged = new Set(exchanges.map((exchange) => exchange.key)).size < new Set(tape.exchanges.map(({ exchange }) => exchange.key)).size;
  io.stdout.write(`${file}: ${changed.length} of ${exchanges.length} key${exchanges.length === 1 ? '' : 's'} changed${rulesChanged ? ' (new key rules)' : ''}\n`);
  for (const change of changed.slice(0, 50)) io.stdout.write(`  line ${change.line}: ${change.from.slice(0, 12)}… → ${change.to.slice(0, 12)}…\n`);
  if (changed.length > 50) io.stdout.write(`  … and ${changed.length - 50} more\n`);
  if (merged) io.stdout.write('  some requests now share a key: they replay in tape order (ordinals renumbered)\n');
  if (parsed.flags['dry-run'] === true || (changed.length === 0 && !rulesChanged)) return 0;
  const notes = Object.fromEntries(Object.entries(tape.header).filter(([name]) => name.startsWith('_'))) as Record<`_${string}`, unknown>;
  const temporary = `${file}.${process.pid}.rekey.tmp`;
  writeFileSync(temporary, serializeTape({ ...createHeader(rules.rules, notes), writtenBy: tape.header.writtenBy }, exchanges));
  renameSync(temporary, file);
  io.stdout.write(`${file}: rewritten\n`);
  return 0;
}
