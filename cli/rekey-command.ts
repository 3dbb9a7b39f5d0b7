import { renameSync } from 'node:fs';
import {
  canonicalJson,
  compileKeyRules,
  createHeader,
  decodeBody,
  loadTape,
  sha256Hex,
  writeTapeFile,
  type CompiledKeyRules,
  type Exchange,
  type LoadedExchange,
  type RecordedRequest,
} from '../recordings/internal.js';
import { ModeltapeError } from '../core/internal.js';
import { loadConfig } from '../proxy/internal.js';
import { ReplayEngine } from '../lookup/internal.js';
import { describeFlags, parseArguments, UsageError, type FlagSpec } from './arguments.js';
import type { CommandIo, ResolvedCommandIo } from './io.js';
import { expandTapeArguments } from './tape-globs.js';

const FLAGS: readonly FlagSpec[] = [
  { name: 'config', kind: 'string', value: 'FILE', description: 'the rules to apply (default modeltape.config.json, if present; else the default rules)' },
  { name: 'dry-run', kind: 'boolean', description: 'report what would change, write nothing' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const REKEY_USAGE = `Usage: modeltape rekey FILE… [--config FILE] [--dry-run]

Re-derives every key of each tape under the current key rules (the normalizers and key headers of
modeltape.config.json, or the defaults), renumbers ordinals, writes the rules into the header,
and reports which keys changed and why: a rule, or a line edited by hand (whose request body also
gets its bodySha256 fingerprint again, from the body as it now reads). Of two lines recording
the same request under one ordinal (a record run that re-recorded it was stopped before it put
the new one in place), the later is kept, in the place of the earlier. Every line keeps the
inputs of its key, so no request is lost. Each tape is rewritten atomically, or not at all.

A FILE may be a glob, quoted so that modeltape expands it: 'tapes/**/*.jsonl' (* ? [abc] {a,b} and
**; names starting with a dot, and node_modules under **, are not matched).

${describeFlags(FLAGS)}`;

/** How many changed keys are listed per tape. */
const CHANGES_LISTED = 50;

export async function rekeyCommand(argv: readonly string[], io: ResolvedCommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'rekey');
  if (parsed.flags.help === true) {
    io.stdout.write(`${REKEY_USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length === 0)
    throw new UsageError("modeltape rekey needs at least one tape file or glob: modeltape rekey FILE… (e.g. modeltape rekey 'tapes/**/*.jsonl')");
  // Before any tape is touched: a pattern that matches nothing is most likely a typo.
  const files = expandTapeArguments(parsed.positionals, process.cwd(), 'rekey', 'nothing was rekeyed');
  const { config } = loadConfig(parsed.flags.config as string | undefined, io.cwd);
  const rules = compileKeyRules({ headers: config.keyHeaders ?? compileKeyRules().rules.headers, normalizers: config.normalizers ?? [] });
  const dryRun = parsed.flags['dry-run'] === true;

  const totals = { rewritten: 0, unchanged: 0, failed: 0, changedKeys: 0, keys: 0 };
  for (const file of files) {
    try {
      const result = rekeyTape(file, rules, dryRun, io);
      totals.keys += result.keys;
      totals.changedKeys += result.changedKeys;
      if (result.rewrite) totals.rewritten++;
      else totals.unchanged++;
    } catch (error) {
      if (!(error instanceof ModeltapeError)) throw error;
      totals.failed++;
      io.stderr.write(`modeltape: ${file}: ${error.message}\n`);
    }
  }
  if (files.length > 1) {
    const parts = [
      `${totals.rewritten} ${dryRun ? 'would be rewritten' : 'rewritten'} (${totals.changedKeys} of ${totals.keys} keys changed)`,
      `${totals.unchanged} unchanged`,
      ...(totals.failed > 0 ? [`${totals.failed} failed`] : []),
    ];
    io.stdout.write(`rekey: ${files.length} tapes: ${parts.join(', ')}${dryRun ? '; dry run, nothing written' : ''}\n`);
  }
  return totals.failed > 0 ? 1 : 0;
}

/** Re-keys one tape (or, with `dryRun`, says what would change). */
function rekeyTape(file: string, rules: CompiledKeyRules, dryRun: boolean, io: CommandIo): { keys: number; changedKeys: number; rewrite: boolean } {
  const tape = loadTape(file);
  // A re-recording left beside the recording it replaces: the later stands where the earlier was.
  const { kept, superseded } = keepLaterRecordings(tape.exchanges);
  // Every key in full: a line edited by hand changes its key under the same rules.
  const changes = ReplayEngine.keyChanges(kept, rules, compileKeyRules(tape.header.keyRules), { full: true });
  const changedAt = new Map(changes.map((change) => [change.line, change.to]));
  const editedAt = new Set(changes.filter((change) => change.editedByHand === true).map((change) => change.line));
  const ordinals = new Map<string, number>();
  let refingerprinted = 0;
  const exchanges: Exchange[] = kept.map(({ exchange, line }) => {
    const key = changedAt.get(line) ?? exchange.key;
    const ordinal = ordinals.get(key) ?? 0;
    ordinals.set(key, ordinal + 1);
    const request = editedAt.has(line) ? refingerprint(exchange.request) : exchange.request;
    if (request !== exchange.request) refingerprinted++;
    return { ...exchange, key, ordinal, request };
  });
  const renumbered = exchanges.some((exchange, index) => exchange.ordinal !== kept[index]!.exchange.ordinal);
  const rulesChanged = canonicalJson(tape.header.keyRules) !== canonicalJson(rules.rules);
  const merged = new Set(exchanges.map((exchange) => exchange.key)).size < new Set(kept.map(({ exchange }) => exchange.key)).size;
  const count = exchanges.length;
  io.stdout.write(`${file}: ${changes.length} of ${count} key${count === 1 ? '' : 's'} changed${rulesChanged ? ' (new key rules)' : ''}\n`);
  for (const change of changes.slice(0, CHANGES_LISTED))
    io.stdout.write(`  line ${change.line}: ${change.from.slice(0, 12)}… → ${change.to.slice(0, 12)}… ${change.endpoint}: ${change.causes.join('; ')}\n`);
  if (changes.length > CHANGES_LISTED) io.stdout.write(`  … and ${changes.length - CHANGES_LISTED} more\n`);
  if (refingerprinted > 0)
    io.stdout.write(
      `  ${refingerprinted} request bod${refingerprinted === 1 ? 'y was' : 'ies were'} edited by hand: bodySha256 now fingerprints the body as it reads (compact JSON), not the bytes a client once sent\n`,
    );
  for (const { line, by } of superseded.slice(0, CHANGES_LISTED))
    io.stdout.write(`  line ${line}: replaced by line ${by}, a later recording of the same request and ordinal (a re-recording not yet put in place)\n`);
  if (superseded.length > CHANGES_LISTED) io.stdout.write(`  … and ${superseded.length - CHANGES_LISTED} more replaced\n`);
  if (merged) io.stdout.write('  some requests now share a key: they replay in tape order (ordinals renumbered)\n');
  const rewrite = changes.length > 0 || rulesChanged || superseded.length > 0 || renumbered;
  if (!rewrite) return { keys: count, changedKeys: 0, rewrite };
  if (dryRun) {
    io.stdout.write(`${file}: would be rewritten (dry run)\n`);
    return { keys: count, changedKeys: changes.length, rewrite };
  }
  const notes = Object.fromEntries(Object.entries(tape.header).filter(([name]) => name.startsWith('_'))) as Record<`_${string}`, unknown>;
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.rekey.tmp`;
  writeTapeFile(temporary, { ...createHeader(rules.rules, notes), writtenBy: tape.header.writtenBy }, exchanges);
  renameSync(temporary, file);
  io.stdout.write(`${file}: rewritten\n`);
  return { keys: count, changedKeys: changes.length, rewrite };
}

/**
 * The tape's exchanges with each pair of lines that record one request under one ordinal made
 * one: the later line, in the place of the earlier (what a finished re-recording leaves).
 */
function keepLaterRecordings(exchanges: readonly LoadedExchange[]): { kept: LoadedExchange[]; superseded: Array<{ line: number; by: number }> } {
  const last = new Map<string, LoadedExchange>();
  for (const loaded of exchanges) last.set(recordingIdOf(loaded.exchange), loaded);
  const placed = new Set<string>();
  const kept: LoadedExchange[] = [];
  const superseded: Array<{ line: number; by: number }> = [];
  for (const loaded of exchanges) {
    const id = recordingIdOf(loaded.exchange);
    if (placed.has(id)) continue;
    placed.add(id);
    const later = last.get(id)!;
    if (later !== loaded) superseded.push({ line: loaded.line, by: later.line });
    // The later line's content, at the earlier line's place (and number, for what is reported).
    kept.push(later === loaded ? loaded : { exchange: later.exchange, line: loaded.line });
  }
  return { kept, superseded };
}

function recordingIdOf(exchange: Exchange): string {
  return `${exchange.key}#${exchange.ordinal}`;
}

/**
 * A request whose key no rule explains was edited by hand: its `bodySha256` named the bytes a
 * client sent before the edit. It then fingerprints the body as it now reads (the bytes replay
 * keys and `assertRenderedExactly` compares), unless it already does.
 */
function refingerprint(request: RecordedRequest): RecordedRequest {
  if (request.body === undefined) return request;
  const sha = sha256Hex(decodeBody(request.body));
  return sha === request.bodySha256 ? request : { ...request, bodySha256: sha };
}
