import {
  canonicalJson,
  compileKeyRules,
  compileNormalizers,
  exchangeKey,
  keyInputs,
  closeTapeLines,
  LazyLoadedExchange,
  prepareExchangeCheck,
  loadTape,
  normalizeBody,
  normalizePath,
  rewritesBody,
  type CompiledKeyRules,
  type Exchange,
  type KeyRules,
  type LoadedExchange,
  type RecordedRequest,
  type TapeWarning,
} from '../recordings/internal.js';
import { type Difference, diffJson, ModeltapeError } from '../core/internal.js';
import { setImmediate } from 'node:timers';
import { isDeepStrictEqual } from 'node:util';
import { NEAREST_INDEX_MINIMUM, NEAREST_SHORTLIST, NearestIndex, comparedValues, type ComparedValues } from './nearest-index.js';
import { RequestTokenReader } from './request-tokens.js';

/** What happens when identical requests outnumber their recordings. */
export const REPEAT_POLICIES = ['none', 'last'] as const;
export type RepeatPolicy = (typeof REPEAT_POLICIES)[number];

/** One exchange the engine can answer with. `line` is undefined for one recorded by this run. */
export interface ReplayEntry {
  exchange: Exchange;
  line: number | undefined;
  /** How many times this entry answered (more than once only with `repeat: 'last'`). */
  uses: number;
}

export type LookupResult =
  | { kind: 'hit'; entry: ReplayEntry; call: number }
  | { kind: 'exhausted'; entries: readonly ReplayEntry[]; call: number }
  | { kind: 'miss' };

/** The closest recorded request to one that missed. */
export interface NearestRecording {
  entry: ReplayEntry;
  /** The first differing leaves (body paths like `.messages[1].content`, then `header …`, `query …`). */
  differences: Difference[];
  /** How many leaves differ in all. */
  total: number;
}

export interface ReplayEngineOptions {
  /** The tape file, for messages. */
  file: string;
  keyRules: CompiledKeyRules;
  /** @default 'none' */
  repeat?: RepeatPolicy;
  /**
   * Tape lines whose recording answers every later call for its key too, whatever `repeat` says:
   * `modeltape mutate` makes its mutant the provider's answer to that request, retries included.
   */
  repeatLines?: ReadonlySet<number>;
}

/** A recorded exchange whose key changes under other key rules. */
export interface KeyChange {
  /** Its line in the tape. */
  line: number;
  /** e.g. `POST /v1/chat/completions (openai)` */
  endpoint: string;
  /** The key stored in the line. */
  from: string;
  /** Its key under the other rules. */
  to: string;
  /**
   * What changed it, e.g. `normalizer {"path":".metadata.request_id"} (added) at .metadata.request_id`
   * or `header openai-beta (no longer keyed)`.
   */
  causes: string[];
  /** No rule difference explains the change: the line was edited by hand (its stored key did not match its request). */
  editedByHand?: boolean;
}

/**
 * A tape whose keys change under the key rules of this run: replaying or appending would look up
 * keys the tape does not hold. Carries every change; the message names the first ones and the
 * command that re-keys the tape.
 */
export class KeyRulesMismatchError extends ModeltapeError {
  readonly file: string;
  readonly changes: KeyChange[];
  /** How many exchanges the tape holds. */
  readonly exchanges: number;
  readonly tapeRules: KeyRules;
  readonly runRules: KeyRules;

  constructor(file: string, details: { changes: KeyChange[]; exchanges: number; tapeRules: KeyRules; runRules: KeyRules; configFile?: string | undefined }) {
    const { changes, exchanges, tapeRules, runRules } = details;
    const shown = changes.slice(0, KEY_CHANGES_SHOWN).map((change) => `  ${file}:${change.line} ${change.endpoint}: ${change.causes.join('; ')}`);
    if (changes.length > shown.length) shown.push(`  … and ${changes.length - shown.length} more (modeltape rekey ${file} --dry-run lists them all)`);
    super(
      'key_rules_mismatch',
      `Tape ${file} was keyed with other rules than this run uses, and under this run's rules ${changes.length} of ${exchanges} key${exchanges === 1 ? '' : 's'} change:\n` +
        `${shown.join('\n')}\n` +
        `  tape (line 1): ${canonicalJson(tapeRules)}\n` +
        `  this run:      ${canonicalJson(runRules)}\n` +
        `Run ${rekeyCommand(file, details.configFile)} to re-key it under this run's rules (every line keeps its key's inputs; add --dry-run to see what changes first), or give this run the tape's rules (line 1) as its normalizers and key headers.`,
    );
    this.file = file;
    this.changes = changes;
    this.exchanges = exchanges;
    this.tapeRules = tapeRules;
    this.runRules = runRules;
  }
}

const KEY_CHANGES_SHOWN = 10;

/** The command that re-keys a tape under the rules of `configFile` (the default config when undefined). */
function rekeyCommand(file: string, configFile: string | undefined): string {
  return `modeltape rekey ${file}${configFile === undefined ? '' : ` --config ${configFile}`}`;
}

interface Slot {
  entries: ReplayEntry[];
  /** How many calls this key has answered (or tried to) during this run. */
  calls: number;
}

/**
 * Answers requests from recorded exchanges, strictly: a key answers with its recordings in
 * ordinal order, one per call; past the last one it is exhausted unless `repeat` is `last`.
 * Keeps track of what was used, and explains a miss by the nearest recording.
 */
export class ReplayEngine {
  readonly file: string;
  readonly keyRules: CompiledKeyRules;
  readonly repeat: RepeatPolicy;
  readonly #repeatLines: ReadonlySet<number>;
  #byKey = new Map<string, Slot>();
  #byRoute = new Map<string, ReplayEntry[]>();
  /** Entries filed under a route whose line turned out invalid when read in full: no one's nearest. */
  #invalid = new WeakSet<ReplayEntry>();
  #compared = new WeakMap<ReplayEntry, ComparedValues>();
  readonly #requestTokens: RequestTokenReader;
  #lastRoute: { method: string; path: string; upstream: string; route: string } | undefined;
  #nearestIndexes = new Map<string, NearestIndex>();
  #countedOnly = new Map<string, number>();
  #size = 0;
  // The lines the engine was loaded from, when read from a tape file (see close()).
  #tapeLines: readonly LoadedExchange[] | undefined;

  constructor(options: ReplayEngineOptions, loaded: Iterable<LoadedExchange> = []) {
    this.file = options.file;
    this.keyRules = options.keyRules;
    this.repeat = options.repeat ?? 'none';
    this.#repeatLines = options.repeatLines ?? new Set();
    this.#requestTokens = new RequestTokenReader(this.keyRules);
    for (const entry of inEngineOrder(loaded)) this.#add(entryOf(entry), indexOf(entry).key);
    // The indexes are built now, so that even a miss right after load diffs only a shortlist.
    for (const [route, bucket] of this.#byRoute) {
      if (bucket.length < NEAREST_INDEX_MINIMUM) continue;
      const index = this.#indexOf(route);
      while (index.size < bucket.length) {
        this.#indexNext(index, bucket);
        if (index.size === NEAREST_INDEX_MINIMUM) index.reserve(bucket.length - index.size);
      }
      index.prepare();
    }
  }

  /**
   * Loads a tape and builds an engine keyed by `keyRules` (by default the rules its header names;
   * the engine's `keyRules` says which were used). The tape is read once. `warnings` holds what was skipped (torn
   * lines), and a note when the tape's header names other rules under which no key changes (the
   * tape is used as it is, and not written). Throws when the tape is invalid, and
   * {@link KeyRulesMismatchError} when some of its keys change under `keyRules`.
   */
  static fromTape(
    file: string,
    options: {
      keyRules?: CompiledKeyRules;
      repeat?: RepeatPolicy;
      repeatLines?: ReadonlySet<number>;
      requireLive?: boolean;
      /** The config file `keyRules` came from, for the advice of a refusal (`modeltape rekey FILE --config CONFIG`). */
      configFile?: string;
      /** @internal Above this size the tape keeps no line in memory (see `ReadTapeOptions.spillAboveBytes`); tests lower it. */
      spillAboveBytes?: number;
    },
  ): { engine: ReplayEngine; warnings: TapeWarning[] } {
    // Lazily: a line is parsed when first used, so a 100,000-exchange tape opens in well under a
    // second (bench/tape-open.mjs); `modeltape verify` reads every line in full.
    const contents = loadTape(file, { lazy: true, ...(options.spillAboveBytes === undefined ? {} : { spillAboveBytes: options.spillAboveBytes }) });
    // Its lines are checked when first used: the check is compiled now, not by the first hit.
    prepareExchangeCheck();
    if (options.requireLive) {
      const fake = contents.exchanges.filter((loaded) => indexOf(loaded).source !== 'live');
      if (fake.length > 0) {
        throw new ModeltapeError(
          'fake_exchanges_in_tape',
          `Tape ${file} holds ${fake.length} exchange${fake.length === 1 ? '' : 's'} a FakeProvider answered (source "fake"), at line${fake.length === 1 ? '' : 's'} ${fake
            .slice(0, 10)
            .map(({ line }) => line)
            .join(
              ', ',
            )}${fake.length > 10 ? ', …' : ''}, and this replay requires live recordings (--require-live).\nRecord those requests against the real provider, or drop --require-live.`,
        );
      }
    }
    const warnings = [...contents.warnings];
    const keyRules = options.keyRules ?? compileKeyRules(contents.header.keyRules);
    if (canonicalJson(contents.header.keyRules) !== canonicalJson(keyRules.rules)) {
      // Other rules refuse a tape only when they change one of its keys; each line keeps its
      // key's inputs, so every key can be derived again (cost: see keyChanges).
      const changes = ReplayEngine.keyChanges(contents.exchanges, keyRules, compileKeyRules(contents.header.keyRules));
      if (changes.length > 0) {
        throw new KeyRulesMismatchError(file, {
          changes,
          exchanges: contents.exchanges.length,
          tapeRules: contents.header.keyRules,
          runRules: keyRules.rules,
          configFile: options.configFile,
        });
      }
      warnings.push({
        file,
        line: 1,
        message: `the tape was keyed with other rules than this run uses, and none of its ${contents.exchanges.length} keys changes under this run's rules, so it is used as it is. ${rekeyCommand(file, options.configFile)} writes this run's rules into its header (recording into the tape does too).`,
      });
    }
    const engine = new ReplayEngine(
      { file, keyRules, ...(options.repeat ? { repeat: options.repeat } : {}), ...(options.repeatLines ? { repeatLines: options.repeatLines } : {}) },
      contents.exchanges,
    );
    // A large tape's lines are read again from the file when used (to index them, then a hit's
    // one line, a miss's shortlist): the file stays open until close().
    engine.#tapeLines = contents.exchanges;
    return { engine, warnings };
  }

  /**
   * Lets go of the tape file a large tape's spilled lines are read from (its descriptor). A line
   * used after this is read by opening the file again. Idempotent.
   */
  close(): void {
    if (this.#tapeLines !== undefined) closeTapeLines(this.#tapeLines);
  }

  /**
   * The exchanges whose stored key differs from their key under `keyRules`, each with what
   * changed it compared with `previous` (the rules the tape says it was keyed with): an added or
   * removed normalizer and the first path it touches, a header keyed or no longer keyed.
   *
   * On a 10,000-exchange tape (1.5 KB lines, 2 busy cores): about 2 ms when a path normalizer was
   * added, 50–75 ms for an added pattern, 250–500 ms when every key must be derived again in full
   * (normalizers removed or reordered); loading that tape takes 150–300 ms.
   */
  static keyChanges(
    exchanges: Iterable<LoadedExchange>,
    keyRules: CompiledKeyRules,
    previous: CompiledKeyRules,
    how: {
      /** Derive every key in full, as `modeltape rekey` does: a line edited by hand changes its key under the same rules. */
      full?: boolean;
    } = {},
  ): KeyChange[] {
    const changes: KeyChange[] = [];
    const mayChange = how.full === true ? undefined : changeFilter(keyRules, previous);
    for (const { exchange, line } of exchanges) {
      if (mayChange !== undefined && !mayChange(exchange)) continue;
      const key = exchangeKey(exchange.upstream, exchange.request, keyRules);
      if (key === exchange.key) continue;
      const causes = causesOfChange(exchange, keyRules, previous);
      changes.push({
        line,
        endpoint: routeOf(exchange.upstream, exchange.request.method, exchange.request.path),
        from: exchange.key,
        to: key,
        causes: causes ?? [HAND_EDIT_CAUSE],
        ...(causes === undefined ? { editedByHand: true } : {}),
      });
    }
    return changes;
  }

  /** How many exchanges the engine can answer with. */
  get size(): number {
    return this.#size;
  }

  /** Takes the next recorded answer for a key. */
  lookup(key: string): LookupResult {
    const slot = this.#byKey.get(key);
    if (slot === undefined) return { kind: 'miss' };
    const call = slot.calls++;
    let entry = slot.entries[call];
    if (entry === undefined) {
      const last = slot.entries[slot.entries.length - 1];
      const repeats = last !== undefined && (this.repeat === 'last' || (last.line !== undefined && this.#repeatLines.has(last.line)));
      if (!repeats) return { kind: 'exhausted', entries: slot.entries, call };
      entry = last;
    }
    entry.uses++;
    return { kind: 'hit', entry, call };
  }

  /**
   * Undoes the {@link lookup} that just took `entry` for `key`: the call did not count (an
   * injected fault answered it), so the next call for the key takes the same recording.
   */
  giveBack(key: string, entry: ReplayEntry): void {
    const slot = this.#byKey.get(key);
    if (slot === undefined || slot.calls === 0 || entry.uses === 0) return;
    slot.calls--;
    entry.uses--;
  }

  /** The ordinal the next exchange recorded for this key gets. */
  nextOrdinal(key: string): number {
    return (this.#byKey.get(key)?.entries.length ?? 0) + (this.#countedOnly.get(key) ?? 0);
  }

  /** Whether the tape this engine was loaded from holds a recording of `key` with `ordinal`. */
  holdsRecording(key: string, ordinal: number): boolean {
    const slot = this.#byKey.get(key);
    return slot !== undefined && slot.entries.some((entry) => entry.line !== undefined && ReplayEngine.identity(entry).ordinal === ordinal);
  }

  /**
   * Counts an exchange this run recorded without keeping it (record mode never replays, so
   * holding every exchange would only grow the heap). Later ordinals for its key follow it.
   */
  countRecorded(exchange: Exchange): void {
    this.#countedOnly.set(exchange.key, (this.#countedOnly.get(exchange.key) ?? 0) + 1);
  }

  /**
   * Adds an exchange this run recorded (auto mode), so later identical requests replay it.
   * It counts as used by the call that recorded it.
   */
  addRecorded(exchange: Exchange): ReplayEntry {
    const entry: ReplayEntry = { exchange, line: undefined, uses: 1 };
    this.#add(entry);
    const slot = this.#byKey.get(exchange.key)!;
    slot.calls = Math.max(slot.calls, slot.entries.length);
    return entry;
  }

  /** Every recorded entry in tape order, with how often each was used. */
  entries(): ReplayEntry[] {
    const all: ReplayEntry[] = [];
    for (const slot of this.#byKey.values()) for (const entry of slot.entries) all.push(entry);
    return all.sort((a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER));
  }

  /** An entry's key and ordinal, read without parsing a lazily loaded line. */
  static identity(entry: ReplayEntry): { key: string; ordinal: number } {
    return entry instanceof LazyEntry ? entry.loaded : entry.exchange;
  }

  /** An entry's upstream, read without parsing a lazily loaded line. */
  static upstreamOf(entry: ReplayEntry): string {
    return entry instanceof LazyEntry ? entry.loaded.upstream : entry.exchange.upstream;
  }

  /** The upstreams the recordings name, read without parsing a lazily loaded line. */
  upstreams(): Set<string> {
    const names = new Set<string>();
    for (const slot of this.#byKey.values())
      for (const entry of slot.entries) names.add(entry instanceof LazyEntry ? entry.loaded.upstream : entry.exchange.upstream);
    return names;
  }

  /** The tape lines of the recordings that answered a call, in tape order (an exchange recorded by this run has none). */
  usedLines(): number[] {
    const lines: number[] = [];
    for (const entry of this.entries()) if (entry.uses > 0 && entry.line !== undefined) lines.push(entry.line);
    return lines;
  }

  /**
   * How many of the tape's recordings no call used, of how many, and the first of their lines:
   * what a replay's summary says it left unused. Cheaper than {@link unused} on a large tape.
   */
  unusedCount(firstLines = 5): { count: number; total: number; lines: number[] } {
    let count = 0;
    let total = 0;
    const lines: number[] = [];
    for (const slot of this.#byKey.values()) {
      for (const entry of slot.entries) {
        if (entry.line === undefined) continue;
        total++;
        if (entry.uses > 0) continue;
        count++;
        lines.push(entry.line);
      }
    }
    lines.sort((a, b) => a - b);
    return { count, total, lines: lines.slice(0, firstLines) };
  }

  /** Entries that never answered a call. */
  unused(): ReplayEntry[] {
    return this.entries().filter((entry) => entry.uses === 0);
  }

  /**
   * The recording closest to a request that missed: same method, upstream and path, fewest
   * differing leaves (ties: the first in tape order). Computed only on a miss. Undefined when
   * nothing shares the route. A route with many recordings is indexed on its first miss, so only
   * a shortlist is diffed (see {@link NearestIndex}).
   */
  nearest(upstream: string, request: RecordedRequest): NearestRecording | undefined {
    const route = routeOf(upstream, request.method, request.path);
    const bucket = this.#byRoute.get(route);
    if (bucket === undefined || bucket.length === 0) return undefined;
    const sent = comparedValues(keyInputs(upstream, request, this.keyRules));
    for (;;) {
      const indexed = bucket.length >= NEAREST_INDEX_MINIMUM;
      const candidates = indexed ? this.#shortlist(route, bucket, sent) : bucket;
      let best: NearestRecording | undefined;
      let bestDistance = 0;
      let again = false;
      for (const candidate of candidates) {
        if (this.#invalid.has(candidate)) continue;
        // Compared from its request alone (a lazily loaded line is not parsed whole for it).
        const recorded = this.#indexedValues(candidate);
        if (recorded === undefined) {
          if (indexed) this.#indexOf(route).exclude(bucket.indexOf(candidate));
          again = indexed;
          continue;
        }
        // One past the best, so a tie (as many differences) can be told from a worse candidate.
        const differences = compareInputs(recorded, sent, best === undefined ? Number.POSITIVE_INFINITY : best.total + 1);
        if (best !== undefined && differences.length > best.total) continue;
        const distance = textDistance(differences);
        // Fewest differing leaves wins; among as many, the one whose values are closest to what was
        // sent ("Thanks" is nearer "Thank you!" than "Ship to Paris" is); then the earliest line.
        if (best === undefined || differences.length < best.total || distance < bestDistance) {
          best = { entry: candidate, differences, total: differences.length };
          bestDistance = distance;
          if (best.total === 0) break;
        }
      }
      // The one chosen is checked in full before it is named: a line that turns out invalid (a
      // hand edit) is no one's nearest recording, and a request that hits its key gets the error
      // that names the line. Without it (or an invalid line that took a place on the shortlist),
      // the choice is made again.
      if (best !== undefined && this.#comparedOf(best.entry) === undefined) {
        if (indexed) this.#indexOf(route).exclude(bucket.indexOf(best.entry));
        continue;
      }
      if (!again) return best;
    }
  }

  /** Routes the tape holds, with how many exchanges each, e.g. `POST /v1/messages (anthropic)`. */
  routes(): Array<{ route: string; count: number }> {
    const routes: Array<{ route: string; count: number }> = [];
    for (const [route, entries] of this.#byRoute) {
      let count = 0;
      for (const entry of entries) if (!this.#invalid.has(entry)) count++;
      if (count > 0) routes.push({ route, count });
    }
    return routes;
  }

  #add(entry: ReplayEntry, key = entry.exchange.key): void {
    let slot = this.#byKey.get(key);
    if (slot === undefined) {
      slot = { entries: [], calls: 0 };
      this.#byKey.set(key, slot);
    }
    slot.entries.push(entry);
    this.#size++;
    const route = this.#routeOfEntry(entry);
    if (route === undefined) return;
    let bucket = this.#byRoute.get(route);
    if (bucket === undefined) {
      bucket = [];
      this.#byRoute.set(route, bucket);
    }
    bucket.push(entry);
  }

  // A lazily loaded line's route is read from its bytes (parsing 100,000 lines to file them would
  // take seconds); one that is not in the writer's form is parsed.
  #routeOfEntry(entry: ReplayEntry): string | undefined {
    if (entry instanceof LazyEntry) {
      const outline = entry.loaded.requestRoute();
      if (outline !== undefined) {
        // A tape's lines mostly share a few routes: the last one's string is reused.
        const last = this.#lastRoute;
        if (last !== undefined && last.method === outline.method && last.path === outline.path && last.upstream === entry.loaded.upstream) return last.route;
        const route = routeOf(entry.loaded.upstream, outline.method, outline.path);
        this.#lastRoute = { method: outline.method, path: outline.path, upstream: entry.loaded.upstream, route };
        return route;
      }
    }
    let exchange: Exchange;
    try {
      ({ exchange } = entry);
    } catch {
      // A line that turns out invalid on first use (a hand edit) is no one's nearest recording;
      // a request that hits its key gets the error that names the line.
      return undefined;
    }
    return routeOf(exchange.upstream, exchange.request.method, exchange.request.path);
  }

  /**
   * Since the engine builds the nearest-recording index of every large route when it is made
   * (from the request part of each line, so a miss right after load diffs only a shortlist),
   * this only runs what a miss runs, on later turns of the event loop and a little at a time
   * (one query per indexed route, then a few dozen comparisons of recordings), so that the first
   * real miss finds that code compiled. `stop()` ends it early (a closing proxy calls it); `done`
   * settles when it ends either way.
   */
  warmNearest(): { done: Promise<void>; stop(): void } {
    let stopped = false;
    const pause = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
    const warm = async (): Promise<void> => {
      for (const [route, index] of this.#nearestIndexes) {
        await pause();
        if (stopped) return;
        const bucket = this.#byRoute.get(route)!;
        const values = bucket.length > 0 ? this.#indexedValues(bucket[0]!) : undefined;
        if (values === undefined) continue;
        index.closest(values, 1);
        // A shortlist is diffed from each candidate's request alone: read and compare a few, as it does.
        for (let slice = 0; slice < WARM_SLICES; slice++) {
          await pause();
          if (stopped) return;
          for (let at = 1 + slice * WARM_SLICE; at <= (slice + 1) * WARM_SLICE && at < bucket.length; at++) {
            const recorded = this.#indexedValues(bucket[at]!);
            if (recorded !== undefined) textDistance(compareInputs(recorded, values, 2));
          }
        }
      }
    };
    const done = (async () => {
      // Warming is ahead-of-time work: whatever fails here fails again, and is reported, where a
      // request needs it.
      try {
        await warm();
      } catch {
        stopped = true;
      }
    })();
    return {
      done,
      stop: () => {
        stopped = true;
      },
    };
  }

  /** How many recordings of a route its nearest-recording index holds so far (0 when it has none). */
  indexedCount(upstream: string, method: string, path: string): number {
    return this.#nearestIndexes.get(routeOf(upstream, method, path))?.size ?? 0;
  }

  /** The recordings of a route the index ranks closest to `sent`, in tape order. */
  #shortlist(route: string, bucket: readonly ReplayEntry[], sent: ComparedValues): ReplayEntry[] {
    const index = this.#indexOf(route);
    // Index ids are bucket positions. Built with the engine (or on the first miss of a route
    // that grew past the minimum), and caught up here with what addRecorded appended since;
    // values are not cached, so a 100k tape is not copied.
    while (index.size < bucket.length) this.#indexNext(index, bucket);
    return index.closest(sent, NEAREST_SHORTLIST).map(({ id }) => bucket[id]!);
  }

  #indexOf(route: string): NearestIndex {
    let index = this.#nearestIndexes.get(route);
    if (index === undefined) {
      index = new NearestIndex();
      this.#nearestIndexes.set(route, index);
    }
    return index;
  }

  #indexNext(index: NearestIndex, bucket: readonly ReplayEntry[]): void {
    const entry = bucket[index.size]!;
    if (entry instanceof LazyEntry) {
      // From the bytes of its request: no line of a large tape is parsed to index it.
      const bytes = entry.loaded.requestBytes();
      if (bytes !== undefined && index.addRead(this.#requestTokens.at(bytes.buffer, bytes.start, bytes.end)) >= 0) return;
    }
    const values = this.#indexedValues(entry);
    if (values === undefined) index.addExcluded();
    else index.add(values);
  }

  // What the index holds of an entry: of a lazily loaded line, read from its request alone (the
  // response stays unparsed, and nothing is kept); undefined for a line that cannot be read.
  #indexedValues(entry: ReplayEntry): ComparedValues | undefined {
    if (entry instanceof LazyEntry) {
      const request = entry.loaded.uncheckedRequest();
      if (request !== undefined) {
        try {
          return comparedValues(keyInputs(entry.loaded.upstream, request as RecordedRequest, this.keyRules));
        } catch {
          // Not a request after all: the line's own check says what is wrong with it.
        }
      }
    }
    return this.#comparedOf(entry);
  }

  // Undefined (and the entry marked invalid) when its line is invalid.
  #comparedOf(entry: ReplayEntry): ComparedValues | undefined {
    let compared = this.#compared.get(entry);
    if (compared === undefined) {
      let exchange: Exchange;
      try {
        ({ exchange } = entry);
      } catch {
        this.#invalid.add(entry);
        return undefined;
      }
      compared = comparedValues(keyInputs(exchange.upstream, exchange.request, this.keyRules));
      this.#compared.set(entry, compared);
    }
    return compared;
  }
}

// What warmNearest compares ahead of the first miss: a few dozen recordings a turn, a few turns.
const WARM_SLICE = 32;
const WARM_SLICES = 8;

// By ordinal, then line. A tape read in order is already sorted by line, and mostly by ordinal
// too: the sort of 100,000 exchanges is skipped when it would change nothing.
function inEngineOrder(loaded: Iterable<LoadedExchange>): LoadedExchange[] {
  const all = [...loaded];
  let sorted = true;
  for (let at = 1; at < all.length && sorted; at++) {
    const before = all[at - 1]!;
    const here = all[at]!;
    const order = indexOf(before).ordinal - indexOf(here).ordinal || before.line - here.line;
    sorted = order <= 0;
  }
  return sorted ? all : all.sort((a, b) => indexOf(a).ordinal - indexOf(b).ordinal || a.line - b.line);
}

// What a lazily loaded line knows without parsing; an eager one is asked.
function indexOf(loaded: LoadedExchange): { key: string; ordinal: number; source: string } {
  return loaded instanceof LazyLoadedExchange ? loaded : loaded.exchange;
}

// An entry that parses its line only when its exchange is first used.
class LazyEntry implements ReplayEntry {
  readonly loaded: LazyLoadedExchange;
  readonly line: number;
  uses = 0;

  constructor(loaded: LazyLoadedExchange) {
    this.loaded = loaded;
    this.line = loaded.line;
  }

  get exchange(): Exchange {
    return this.loaded.exchange;
  }
}

function entryOf(loaded: LoadedExchange): ReplayEntry {
  return loaded instanceof LazyLoadedExchange ? new LazyEntry(loaded) : { exchange: loaded.exchange, line: loaded.line, uses: 0 };
}

function routeOf(upstream: string, method: string, path: string): string {
  return `${method} ${path} (${upstream})`;
}

/**
 * When the new rules only add normalizers after the old ones (and key other headers), a cheap
 * test of whether an exchange's key can change at all: a carried header whose keying differs, or
 * an added normalizer that touches the body as the old ones left it. Only exchanges it passes are
 * keyed again in full (the usual case, a normalizer added, re-derives a 10,000-exchange tape in
 * a fraction of the time). Undefined when the rules differ otherwise.
 */
function changeFilter(rules: CompiledKeyRules, previous: CompiledKeyRules): ((exchange: Exchange) => boolean) | undefined {
  const before = previous.rules.normalizers.map((normalizer) => canonicalJson(normalizer));
  const after = rules.rules.normalizers.map((normalizer) => canonicalJson(normalizer));
  if (before.length > after.length || before.some((normalizer, index) => after[index] !== normalizer)) return undefined;
  const added = rules.normalizers.slice(before.length);
  const headers = [...new Set([...rules.headers, ...previous.headers])].filter((name) => rules.headers.has(name) !== previous.headers.has(name));
  const addedOnPath = added.filter((normalizer) => !rewritesBody(normalizer));
  const addedOnBody = added.filter(rewritesBody);
  return ({ request }) => {
    if (headers.some((name) => request.headers[name] !== undefined)) return true;
    if (addedOnPath.length > 0 && normalizePath(request.path, rules.normalizers) !== normalizePath(request.path, previous.normalizers)) return true;
    if (addedOnBody.length === 0 || request.body === undefined || !('json' in request.body)) return false;
    const base = previous.normalizers.length === 0 ? request.body.json : normalizeBody(request.body.json, previous.normalizers);
    return addedOnBody.some((normalizer) => touches(base, normalizer));
  };
}

/**
 * Whether a compiled normalizer would replace anything in `value`: a value at its path, or a
 * match of its pattern in a string. Reads only, so no copy of the body is made.
 */
function touches(value: unknown, normalizer: CompiledKeyRules['normalizers'][number]): boolean {
  if (normalizer.kind === 'pattern') {
    const visit = (node: unknown): boolean => {
      if (typeof node === 'string') {
        normalizer.pattern.lastIndex = 0;
        return normalizer.pattern.test(node);
      }
      if (Array.isArray(node)) return node.some(visit);
      return typeof node === 'object' && node !== null && Object.values(node).some(visit);
    };
    return visit(value);
  }
  const at = (node: unknown, depth: number): boolean => {
    if (depth === normalizer.segments.length) return true;
    const segment = normalizer.segments[depth]!;
    const isObject = typeof node === 'object' && node !== null && !Array.isArray(node);
    if ('wildcard' in segment)
      return Array.isArray(node) ? node.some((item) => at(item, depth + 1)) : isObject && Object.values(node).some((item) => at(item, depth + 1));
    if ('index' in segment) return Array.isArray(node) && segment.index < node.length && at(node[segment.index], depth + 1);
    return isObject && Object.hasOwn(node, segment.property) && at((node as Record<string, unknown>)[segment.property], depth + 1);
  };
  return at(value, 0);
}

const HAND_EDIT_CAUSE = 'no rule difference explains it: the line was edited by hand (its stored key did not match its request)';

/**
 * Which rule differences change an exchange's key: the normalizers added or removed that touch
 * its body, the key headers it carries; undefined when none does (the line was edited by hand).
 */
function causesOfChange(exchange: Exchange, rules: CompiledKeyRules, previous: CompiledKeyRules): string[] | undefined {
  const { request } = exchange;
  const causes: string[] = [];
  for (const name of Object.keys(request.headers).sort()) {
    if (rules.headers.has(name) !== previous.headers.has(name)) causes.push(`header ${name} (${rules.headers.has(name) ? 'now keyed' : 'no longer keyed'})`);
  }
  const written = (rulesOf: CompiledKeyRules) => new Set(rulesOf.rules.normalizers.map((normalizer) => canonicalJson(normalizer)));
  for (const normalizer of rules.rules.normalizers.filter(
    (normalizer) => !written(previous).has(canonicalJson(normalizer)) && 'pattern' in normalizer && normalizer.in === 'path',
  )) {
    if (normalizePath(request.path, compileNormalizers([normalizer])) !== request.path)
      causes.push(`normalizer ${canonicalJson(normalizer)} (added) on the path ${request.path}`);
  }
  for (const normalizer of previous.rules.normalizers.filter(
    (normalizer) => !written(rules).has(canonicalJson(normalizer)) && 'pattern' in normalizer && normalizer.in === 'path',
  )) {
    if (normalizePath(request.path, compileNormalizers([normalizer])) !== request.path)
      causes.push(`normalizer ${canonicalJson(normalizer)} (removed) on the path ${request.path}`);
  }
  if (request.body !== undefined && 'json' in request.body) {
    const body = request.body.json;
    const [now, before] = [written(rules), written(previous)];
    const differing = [
      ...rules.rules.normalizers.filter((normalizer) => !before.has(canonicalJson(normalizer))).map((normalizer) => ({ normalizer, change: 'added' })),
      ...previous.rules.normalizers.filter((normalizer) => !now.has(canonicalJson(normalizer))).map((normalizer) => ({ normalizer, change: 'removed' })),
    ];
    let touched = false;
    for (const { normalizer, change } of differing) {
      const [first] = diffJson(body, normalizeBody(body, compileNormalizers([normalizer])), { stopAfter: 1 });
      if (first === undefined) continue;
      touched = true;
      causes.push(`normalizer ${canonicalJson(normalizer)} (${change}) at ${first.path || 'the body'}`);
    }
    if (!touched && !isDeepStrictEqual(normalizeBody(body, rules.normalizers), normalizeBody(body, previous.normalizers)))
      causes.push('the normalizers apply in another order');
  }
  return causes.length === 0 ? undefined : causes;
}

// Body paths read as the request does (`.messages[1].content`); headers and query are named.
export function compareInputs(recorded: ComparedValues, sent: ComparedValues, stopAfter: number): Difference[] {
  const differences = diffJson(recorded.body, sent.body, { stopAfter });
  for (const difference of diffJson(recorded.headers, sent.headers, { stopAfter: stopAfter - differences.length })) {
    differences.push({ ...difference, path: `header ${difference.path.replace(/^\.|^\["|"\]$/g, '')}` });
  }
  for (const difference of diffJson(recorded.query, sent.query, { stopAfter: stopAfter - differences.length })) {
    differences.push({ ...difference, path: `query ${difference.path.replace(/^\.|^\["|"\]$/g, '').replace(/#\d+$/, '')}` });
  }
  return differences;
}

/**
 * How far apart the differing values are, to choose between candidates with as many differing
 * leaves: for two strings, the characters outside their common start and end; otherwise the
 * length of both values as JSON.
 */
export function textDistance(differences: readonly Difference[]): number {
  let distance = 0;
  for (const difference of differences) {
    const { recorded, sent } = difference;
    if (typeof recorded === 'string' && typeof sent === 'string') {
      let prefix = 0;
      while (prefix < recorded.length && prefix < sent.length && recorded[prefix] === sent[prefix]) prefix++;
      let suffix = 0;
      while (suffix < recorded.length - prefix && suffix < sent.length - prefix && recorded[recorded.length - 1 - suffix] === sent[sent.length - 1 - suffix])
        suffix++;
      distance += recorded.length + sent.length - 2 * (prefix + suffix);
    } else {
      distance += (JSON.stringify(recorded) ?? '').length + (JSON.stringify(sent) ?? '').length;
    }
  }
  return distance;
}
