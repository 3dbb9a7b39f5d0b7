import type { KeyInputs } from '../recordings/internal.js';
import {
  ARRAY,
  FALSE,
  FNV_OFFSET,
  MEMBER,
  MISSING,
  NULL,
  NUMBER,
  OBJECT,
  OTHER,
  ROOT_BODY,
  ROOT_HEADERS,
  ROOT_QUERY,
  STEP_INDEX,
  STEP_PROPERTY,
  STRING,
  TRUE,
  finish,
  mix,
  mixText,
} from './token-hash.js';

/**
 * What `nearest()` diffs for one request, one value per root: the body after normalizers
 * (unwrapped from `{ json }`), the key headers, and the query as an object keyed `name#position`
 * so that repeated names stay apart.
 */
export interface ComparedValues {
  body: unknown;
  headers: Readonly<Record<string, string>>;
  query: Readonly<Record<string, string>>;
}

export function comparedValues(inputs: KeyInputs): ComparedValues {
  const body = inputs.body !== null && typeof inputs.body === 'object' && 'json' in inputs.body ? (inputs.body as { json: unknown }).json : inputs.body;
  const query: Record<string, string> = {};
  inputs.query.forEach(([name, value], index) => {
    query[`${name}#${index}`] = value;
  });
  return { body, headers: inputs.headers, query };
}

/** Below this many recordings on a route, `nearest()` diffs every one; from here on it asks a {@link NearestIndex}. */
export const NEAREST_INDEX_MINIMUM = 64;

/** How many of the closest recordings by estimate the exact diff then compares. */
export const NEAREST_SHORTLIST = 16;
/** At most this many recordings tied at the shortlist's worst estimate are diffed as well. */
export const NEAREST_TIE_CAP = 256;

/** One recording the index ranks close, by its id (the order it was added in). */
export interface NearestCandidate {
  id: number;
  /** How many leaves `diffJson` would find differing, summed over body, headers and query. */
  estimate: number;
}

/**
 * An inverted index over the recordings of one route that finds the few closest to a request
 * without diffing them all.
 *
 * Each recording is walked once into hashed tokens (32-bit FNV-1a, no strings kept): one per
 * primitive leaf (path and value), one per object member (path), one per container (path and
 * kind, with its size). For two values, `diffJson` counts
 *
 *   1 − shared members − shared leaves + Σ shared objects (keys₁ + keys₂ − 1) + Σ shared arrays (max(length₁, length₂) − 1)
 *
 * differences per root (shared: same token on both sides), counting a changed leaf, a kind change
 * and an added or removed subtree as one each. Every term is an intersection, so the postings of
 * the sent request's tokens give every recording's count in one pass: the estimate is exact unless
 * two tokens' hashes collide, and collisions only change which recordings are shortlisted (the
 * caller still diffs the shortlist exactly).
 *
 * Recordings added after a query wait in a tail that queries scan; the tail is folded into the
 * postings once it outgrows an eighth of them.
 */
export class NearestIndex {
  readonly #leaves = new PostingLists(false);
  readonly #containers = new PostingLists(true);
  #size = 0;
  #scores = new Int32Array(0);
  // Recordings never to shortlist (a line that turned out invalid), by id.
  #excluded = new Set<number>();

  /** How many recordings were added; the next one gets this id. */
  get size(): number {
    return this.#size;
  }

  /** Bytes held by the index's typed arrays. */
  get byteLength(): number {
    return this.#leaves.byteLength + this.#containers.byteLength + this.#scores.byteLength;
  }

  /** How many (token, recording) postings the index holds. */
  get postings(): number {
    return this.#leaves.postings + this.#containers.postings;
  }

  /** How many of those are in the tail that queries scan, not yet folded into the postings lists. */
  get tailPostings(): number {
    return this.#leaves.tailPostings + this.#containers.tailPostings;
  }

  /** Adds a recording; returns its id. */
  add(values: ComparedValues): number {
    walkRoots(values, this.#leaves, this.#containers);
    this.#leaves.endEntry();
    this.#containers.endEntry();
    return this.#size++;
  }

  /**
   * Adds a recording whose tokens `reader` gives straight to the index's postings (the hashes
   * `add()` computes; nothing is copied). Returns its id, or -1 when the reader gave up: then
   * nothing it gave is kept.
   */
  addRead(reader: TokenReader): number {
    this.#leaves.mark();
    this.#containers.mark();
    if (!reader.read(this.#leaves, this.#containers)) {
      this.#leaves.rollback();
      this.#containers.rollback();
      return -1;
    }
    this.#leaves.endEntry();
    this.#containers.endEntry();
    return this.#size++;
  }

  /**
   * Makes room for `recordings` more recordings, sized on those added so far (a few dozen make a
   * good sample): a large build then grows no array by copying it, which would hold the old copy
   * and the new one at once.
   */
  reserve(recordings: number): void {
    this.#leaves.reserve(recordings);
    this.#containers.reserve(recordings);
  }

  /** Adds a recording that is never shortlisted (its line cannot be read); returns its id. */
  addExcluded(): number {
    this.#leaves.endEntry();
    this.#containers.endEntry();
    this.#excluded.add(this.#size);
    return this.#size++;
  }

  /** Stops shortlisting a recording (its line turned out invalid when it was read in full). */
  exclude(id: number): void {
    this.#excluded.add(id);
  }

  /** Folds what was added since the last query into the postings, so the next query need not (warm-up calls it last). */
  prepare(): void {
    this.#leaves.compactIfDue();
    this.#containers.compactIfDue();
  }

  /**
   * Up to `limit` recordings with the fewest estimated differences from `values`, in id order.
   * Ties go to the lower id, as the scan that reads recordings in id order would pick them.
   */
  closest(values: ComparedValues, limit: number): NearestCandidate[] {
    this.prepare();
    const query = new QueryTokens();
    walkRoots(values, query, query);
    if (this.#scores.length < this.#size) this.#scores = new Int32Array(Math.max(this.#size, Math.ceil(this.#scores.length * 1.5)));
    const scores = this.#scores;
    scores.fill(0, 0, this.#size);
    const constant = ROOTS + this.#leaves.scoreLeaves(query.leaves, scores, this.#size) + this.#containers.scoreContainers(query, scores, this.#size);
    for (const id of this.#excluded) scores[id] = EXCLUDED;
    let ids = smallest(scores, this.#size, limit).filter((id) => scores[id] !== EXCLUDED);
    if (ids.length === limit) {
      // Everything tied with the last one shortlisted comes too (up to a cap): the caller breaks
      // ties by how close the values are, which the estimate cannot see.
      const threshold = Math.max(...ids.map((id) => scores[id]!));
      const chosen = new Set(ids);
      for (let id = 0; id < this.#size && chosen.size < NEAREST_TIE_CAP; id++) if (scores[id] === threshold) chosen.add(id);
      ids = [...chosen].sort((a, b) => a - b);
    }
    return ids.map((id) => ({ id, estimate: constant + scores[id]! }));
  }
}

// A score no recording reaches: a body has far fewer than 2^30 leaves.
const EXCLUDED = 0x3fffffff;

/** The three roots `nearest()` diffs: body, headers, query. */
const ROOTS = 3;

export interface LeafSink {
  /** A primitive leaf or an object member: a shared one counts one difference less. */
  leaf(hash: number): void;
}

export interface ContainerSink {
  /** An object or array, with its number of keys or elements. */
  container(hash: number, isArray: boolean, size: number): void;
}

function walkRoots(values: ComparedValues, leaves: LeafSink, containers: ContainerSink): void {
  walk(values.body, mix(FNV_OFFSET, ROOT_BODY), leaves, containers);
  walk(values.headers, mix(FNV_OFFSET, ROOT_HEADERS), leaves, containers);
  walk(values.query, mix(FNV_OFFSET, ROOT_QUERY), leaves, containers);
}

// Mirrors diffJson's kinds: null, array, object, string, number, boolean, missing.
function walk(value: unknown, path: number, leaves: LeafSink, containers: ContainerSink): void {
  switch (typeof value) {
    case 'string':
      leaves.leaf(finish(mixText(mix(path, STRING), value)));
      return;
    case 'number':
      // String() spells alike the numbers diffJson holds equal (0 and -0, NaN and NaN), the others apart.
      leaves.leaf(finish(mixText(mix(path, NUMBER), String(value))));
      return;
    case 'boolean':
      leaves.leaf(finish(mix(path, value ? TRUE : FALSE)));
      return;
    case 'undefined':
      leaves.leaf(finish(mix(path, MISSING)));
      return;
    case 'object':
      break;
    default:
      leaves.leaf(finish(mixText(mix(path, OTHER), `${typeof value}:${String(value)}`)));
      return;
  }
  if (value === null) {
    leaves.leaf(finish(mix(path, NULL)));
    return;
  }
  if (Array.isArray(value)) {
    containers.container(finish(mix(path, ARRAY)), true, value.length);
    for (let index = 0; index < value.length; index++) walk(value[index], mix(mix(path, STEP_INDEX), index), leaves, containers);
    return;
  }
  const names = Object.keys(value);
  containers.container(finish(mix(path, OBJECT)), false, names.length);
  for (const name of names) {
    const member = mixText(mix(path, STEP_PROPERTY), name);
    leaves.leaf(finish(mix(member, MEMBER)));
    walk((value as Record<string, unknown>)[name], member, leaves, containers);
  }
}

/** What reads one recording's tokens straight into an index's sinks (see {@link NearestIndex.addRead}). */
export interface TokenReader {
  /** Gives every token of the recording; false when it cannot (then what it gave is taken back). */
  read(leaves: LeafSink, containers: ContainerSink): boolean;
}

/** The sent request's tokens. */
class QueryTokens implements LeafSink, ContainerSink {
  readonly leaves: number[] = [];
  readonly containers: number[] = [];
  readonly sizes: number[] = [];
  readonly arrays: boolean[] = [];

  leaf(hash: number): void {
    this.leaves.push(hash);
  }

  container(hash: number, isArray: boolean, size: number): void {
    this.containers.push(hash);
    this.sizes.push(size);
    this.arrays.push(isArray);
  }
}

/**
 * Token → recording ids, optionally with a weight per posting (a container's size). Tokens get
 * dense numbers from an open-addressing dictionary of their hashes; postings are kept as one array
 * grouped by token (`starts[t]` … `starts[t + 1]`), plus a tail of recordings added since it was
 * built, as a stream of token numbers per recording.
 */
class PostingLists implements LeafSink, ContainerSink {
  readonly #weighted: boolean;
  // Dictionary: slot → token number + 1 (0: empty); token number → hash.
  #slots = new Int32Array(1024);
  #hashes = new Uint32Buffer(512);
  // Built postings, for recordings [0, #built).
  #built = 0;
  #starts = new Uint32Array(1);
  #ids = new Uint32Array(0);
  #weights = new Uint32Array(0);
  // Tail: recordings #built, #built + 1, …; tailEnds[k] is where recording #built + k's tokens end.
  #tailTokens = new Uint32Buffer();
  #tailWeights = new Uint32Buffer();
  #tailEnds = new Uint32Buffer();
  // Token number → its size, for the containers every built recording holds with one size.
  #uniform = new Map<number, number>();
  // Token number → 1 + its index among the query's tokens, while a query scans the tail.
  #marks = new Int32Array(0);

  constructor(weighted: boolean) {
    this.#weighted = weighted;
  }

  get postings(): number {
    return this.#ids.length + this.#tailTokens.length;
  }

  get tailPostings(): number {
    return this.#tailTokens.length;
  }

  get byteLength(): number {
    return (
      this.#slots.byteLength +
      this.#hashes.byteLength +
      this.#starts.byteLength +
      this.#ids.byteLength +
      this.#weights.byteLength +
      this.#tailTokens.byteLength +
      this.#tailWeights.byteLength +
      this.#tailEnds.byteLength +
      this.#marks.byteLength
    );
  }

  leaf(hash: number): void {
    this.#tailTokens.push(this.#intern(hash));
  }

  container(hash: number, _isArray: boolean, size: number): void {
    this.#tailTokens.push(this.#intern(hash));
    this.#tailWeights.push(size);
  }

  endEntry(): void {
    this.#tailEnds.push(this.#tailTokens.length);
  }

  #marked = 0;

  /** Makes room in the tail for `entries` more recordings like those in it (see NearestIndex.reserve). */
  reserve(entries: number): void {
    const held = this.#tailEnds.length;
    if (held === 0) return;
    const perEntry = this.#tailTokens.length / held;
    const tokens = Math.ceil(this.#tailTokens.length + perEntry * entries * 1.05) + 64;
    this.#tailTokens.reserve(tokens);
    if (this.#weighted) this.#tailWeights.reserve(tokens);
    this.#tailEnds.reserve(held + entries);
  }

  /** Remembers where the tail ends, for {@link rollback}. */
  mark(): void {
    this.#marked = this.#tailTokens.length;
  }

  /** Takes back the tail's tokens since {@link mark} (the tokens they interned stay known, with no postings). */
  rollback(): void {
    this.#tailTokens.length = this.#marked;
    // A container's weight is pushed with its token: the two stay in step.
    if (this.#weighted) this.#tailWeights.length = this.#marked;
  }

  /** Folds the tail into the built postings once it holds over an eighth as many (and 4096): queries scan the tail whole. */
  compactIfDue(): void {
    if (this.#tailTokens.length > Math.max(4096, this.#ids.length / 8)) this.#compact();
  }

  /**
   * Subtracts one from the score of every recording holding each leaf token. Returns what this
   * adds to every estimate alike: a token all recordings hold is not visited, it is one less for all.
   */
  scoreLeaves(hashes: readonly number[], scores: Int32Array, size: number): number {
    const tokens: number[] = [];
    let constant = 0;
    for (const hash of hashes) {
      const token = this.#tokenOf(hash);
      if (token < 0) continue;
      tokens.push(token);
      if (token + 1 >= this.#starts.length) continue;
      const from = this.#starts[token]!;
      const to = this.#starts[token + 1]!;
      if (to - from === size) constant--;
      else subtractOne(this.#ids, from, to, scores);
    }
    if (this.#tailEnds.length > 0) this.#scanTail(tokens, scores, () => -1);
    return constant;
  }

  /**
   * Adds each shared container's term to the score of every recording holding it. Returns what
   * this adds to every estimate alike: a container all recordings hold with one size is not visited.
   */
  scoreContainers(query: QueryTokens, scores: Int32Array, size: number): number {
    const tokens: number[] = [];
    const sizes: number[] = [];
    const arrays: boolean[] = [];
    let constant = 0;
    for (let index = 0; index < query.containers.length; index++) {
      const token = this.#tokenOf(query.containers[index]!);
      if (token < 0) continue;
      const sent = query.sizes[index]!;
      const isArray = query.arrays[index]!;
      tokens.push(token);
      sizes.push(sent);
      arrays.push(isArray);
      if (token + 1 >= this.#starts.length) continue;
      const from = this.#starts[token]!;
      const to = this.#starts[token + 1]!;
      const uniform = to - from === size ? this.#uniform.get(token) : undefined;
      if (uniform !== undefined) constant += containerTerm(isArray, uniform, sent);
      else if (isArray) addArrayTerms(this.#ids, this.#weights, from, to, sent, scores);
      else addObjectTerms(this.#ids, this.#weights, from, to, sent, scores);
    }
    if (this.#tailEnds.length > 0) this.#scanTail(tokens, scores, (which, recorded) => containerTerm(arrays[which]!, recorded, sizes[which]!));
    return constant;
  }

  #scanTail(tokens: readonly number[], scores: Int32Array, term: (which: number, recorded: number) => number): void {
    if (this.#marks.length < this.#hashes.length) this.#marks = new Int32Array(Math.ceil(this.#hashes.length * 1.5));
    const marks = this.#marks;
    tokens.forEach((token, which) => {
      marks[token] = which + 1;
    });
    const tailTokens = this.#tailTokens.array;
    const tailWeights = this.#tailWeights.array;
    const ends = this.#tailEnds.array;
    let at = 0;
    for (let entry = 0; entry < this.#tailEnds.length; entry++) {
      const id = this.#built + entry;
      for (const end = ends[entry]!; at < end; at++) {
        const mark = marks[tailTokens[at]!]!;
        if (mark !== 0) scores[id]! += term(mark - 1, this.#weighted ? tailWeights[at]! : 0);
      }
    }
    for (const token of tokens) marks[token] = 0;
  }

  #compact(): void {
    const tokenCount = this.#hashes.length;
    const oldStarts = this.#starts;
    const oldTokens = oldStarts.length - 1;
    const oldIds = this.#ids;
    const oldWeights = this.#weights;
    const tailTokens = this.#tailTokens.array;
    const tailWeights = this.#tailWeights.array;
    const tailLength = this.#tailTokens.length;
    const cursor = new Uint32Array(tokenCount);
    for (let token = 0; token < oldTokens; token++) cursor[token] = oldStarts[token + 1]! - oldStarts[token]!;
    for (let at = 0; at < tailLength; at++) cursor[tailTokens[at]!]!++;
    const starts = new Uint32Array(tokenCount + 1);
    let total = 0;
    for (let token = 0; token < tokenCount; token++) {
      starts[token] = total;
      total += cursor[token]!;
      cursor[token] = starts[token]!;
    }
    starts[tokenCount] = total;
    const ids = new Uint32Array(total);
    const weights = new Uint32Array(this.#weighted ? total : 0);
    for (let token = 0; token < oldTokens; token++) {
      let next = cursor[token]!;
      for (let at = oldStarts[token]!, to = oldStarts[token + 1]!; at < to; at++, next++) {
        ids[next] = oldIds[at]!;
        if (this.#weighted) weights[next] = oldWeights[at]!;
      }
      cursor[token] = next;
    }
    const ends = this.#tailEnds.array;
    let at = 0;
    for (let entry = 0; entry < this.#tailEnds.length; entry++) {
      const id = this.#built + entry;
      for (const end = ends[entry]!; at < end; at++) {
        const next = cursor[tailTokens[at]!]!++;
        ids[next] = id;
        if (this.#weighted) weights[next] = tailWeights[at]!;
      }
    }
    this.#starts = starts;
    this.#ids = ids;
    this.#weights = weights;
    this.#built += this.#tailEnds.length;
    if (this.#weighted) this.#uniform = uniformSizes(starts, weights, this.#built);
    // Fresh buffers: the old ones may be as large as the whole first build.
    this.#tailTokens = new Uint32Buffer();
    this.#tailWeights = new Uint32Buffer();
    this.#tailEnds = new Uint32Buffer();
  }

  #tokenOf(hash: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    const hashes = this.#hashes.array;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = slots[slot]!;
      if (held === 0) return -1;
      if (hashes[held - 1] === hash) return held - 1;
    }
  }

  #intern(hash: number): number {
    const mask = this.#slots.length - 1;
    const hashes = this.#hashes.array;
    let slot = hash & mask;
    for (let held = this.#slots[slot]!; held !== 0; held = this.#slots[slot]!) {
      if (hashes[held - 1] === hash) return held - 1;
      slot = (slot + 1) & mask;
    }
    const token = this.#hashes.length;
    this.#hashes.push(hash);
    this.#slots[slot] = token + 1;
    if (this.#hashes.length * 2 > this.#slots.length) this.#grow();
    return token;
  }

  #grow(): void {
    const slots = new Int32Array(this.#slots.length * 2);
    const mask = slots.length - 1;
    const hashes = this.#hashes.array;
    for (let token = 0; token < this.#hashes.length; token++) {
      let slot = hashes[token]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = token + 1;
    }
    this.#slots = slots;
  }
}

/** The share of a container both sides hold in the count of differing leaves (see NearestIndex). */
function containerTerm(isArray: boolean, recorded: number, sent: number): number {
  return isArray ? Math.max(recorded, sent) - 1 : recorded + sent - 1;
}

// The hot loops, each its own small function so that it is optimized early and stays monomorphic.
function subtractOne(ids: Uint32Array, from: number, to: number, scores: Int32Array): void {
  for (let at = from; at < to; at++) scores[ids[at]!]!--;
}

function addObjectTerms(ids: Uint32Array, weights: Uint32Array, from: number, to: number, sent: number, scores: Int32Array): void {
  for (let at = from; at < to; at++) scores[ids[at]!]! += weights[at]! + sent - 1;
}

function addArrayTerms(ids: Uint32Array, weights: Uint32Array, from: number, to: number, sent: number, scores: Int32Array): void {
  for (let at = from; at < to; at++) scores[ids[at]!]! += Math.max(weights[at]!, sent) - 1;
}

/** Tokens that all `count` recordings hold, with one size: token → that size. */
function uniformSizes(starts: Uint32Array, weights: Uint32Array, count: number): Map<number, number> {
  const uniform = new Map<number, number>();
  for (let token = 0; token + 1 < starts.length; token++) {
    const from = starts[token]!;
    const to = starts[token + 1]!;
    if (to - from !== count || count === 0) continue;
    const size = weights[from]!;
    let at = from + 1;
    while (at < to && weights[at] === size) at++;
    if (at === to) uniform.set(token, size);
  }
  return uniform;
}

/** A growable Uint32Array. */
class Uint32Buffer {
  array: Uint32Array;
  length = 0;

  constructor(capacity = 64) {
    this.array = new Uint32Array(capacity);
  }

  get byteLength(): number {
    return this.array.byteLength;
  }

  /** Makes room for `capacity` values in all, so that pushing up to there copies nothing. */
  reserve(capacity: number): void {
    if (capacity <= this.array.length) return;
    const grown = new Uint32Array(capacity);
    grown.set(this.array.subarray(0, this.length));
    this.array = grown;
  }

  push(value: number): void {
    if (this.length === this.array.length) {
      const grown = new Uint32Array(Math.ceil(this.array.length * 1.5));
      grown.set(this.array);
      this.array = grown;
    }
    this.array[this.length++] = value;
  }
}

/** The ids of the `limit` lowest scores (ties: lower id), in id order. */
function smallest(scores: Int32Array, count: number, limit: number): number[] {
  const ids: number[] = [];
  const values: number[] = [];
  if (limit <= 0) return ids;
  for (let id = 0; id < count; id++) {
    const score = scores[id]!;
    if (ids.length === limit && score >= values[limit - 1]!) continue;
    let at = ids.length === limit ? limit - 1 : ids.length;
    while (at > 0 && values[at - 1]! > score) {
      values[at] = values[at - 1]!;
      ids[at] = ids[at - 1]!;
      at--;
    }
    values[at] = score;
    ids[at] = id;
  }
  return ids.sort((a, b) => a - b);
}
