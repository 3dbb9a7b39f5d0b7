// The tape-per-test layout `tapeForCurrentTest()` writes (`<test dir>/__tapes__/<test file>/<test
// name>.jsonl`): how a test's name becomes a file name, and how `modeltape report` reads it back.
import { createHash } from 'node:crypto';

/** The folder a test file's tapes are kept under, beside the test file: `<test dir>/__tapes__/<test file>/`. */
export const TEST_TAPES_FOLDER = '__tapes__';

// How long a test name may be in a file name before it is cut (a hash then tells it apart).
const KEPT_LENGTH = 120;

/**
 * A test name as a file name: letters and digits of any script kept, everything else turned to
 * `-`. When anything was replaced or the name was cut, a short hash of the whole name is added,
 * so two different names never share a file ("refund €10" and "refund $10" stay apart).
 */
export function safeFileName(name: string): string {
  const readable = cleaned(name).slice(0, KEPT_LENGTH);
  const lossless = readable === name;
  if (lossless && readable !== '') return readable;
  return `${readable || 'test'}-${nameHash(name)}`;
}

/**
 * The test name a file name made by {@link safeFileName} stands for. `known` are the names the test
 * file holds (its `describe` and `test` titles); the one the file name was made from is found among
 * them, joined as Vitest joins them (`checkout > pays with a card`) or as Jest does (with a space),
 * and checked against the file name's hash. Without it (a title built at run time, a test file not
 * at hand) the file name is read back as well as it can be: `--` as ` > `, `-` as a space.
 */
export function testNameOf(fileName: string, known: Iterable<string>): string {
  const parts = new Map<string, Set<string>>();
  for (const text of known) {
    if (text === fileName && safeFileName(text) === fileName) return text;
    const form = cleaned(text);
    if (form === '') continue;
    if (!parts.has(form)) parts.set(form, new Set());
    parts.get(form)!.add(text);
  }
  const hashed = /^(.*)-[0-9a-f]{8}$/.exec(fileName);
  // Kept whole: the file name is the test's name.
  if (hashed === null) return fileName;
  const readable = hashed[1]!;
  const cut = readable.length === KEPT_LENGTH;
  for (const [separator, joiner] of [
    ['--', ' > '],
    ['-', ' '],
  ] as const) {
    const budget = { steps: 20_000 };
    for (const names of joinings(readable, parts, separator, cut, budget)) {
      const candidate = names.join(joiner);
      if (safeFileName(candidate) === fileName) return candidate;
    }
  }
  return readable
    .split('--')
    .map((part) => part.replace(/-/g, ' '))
    .join(' > ');
}

// The ways `rest` is the cleaned forms of known names, one after another with `separator` between
// them (the last may be cut). Bounded: a test file of many short titles cannot make it run long.
function* joinings(
  rest: string,
  parts: ReadonlyMap<string, ReadonlySet<string>>,
  separator: string,
  cut: boolean,
  budget: { steps: number },
): Generator<string[]> {
  for (const [form, texts] of parts) {
    if (--budget.steps < 0) return;
    if (rest === form || (cut && form.startsWith(rest))) for (const text of texts) yield [text];
    if (!rest.startsWith(form + separator)) continue;
    for (const tail of joinings(rest.slice(form.length + separator.length), parts, separator, cut, budget)) {
      for (const text of texts) yield [text, ...tail];
    }
  }
}

function cleaned(name: string): string {
  return name
    .replace(/\s+>\s+/g, '--')
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/-{3,}/g, '--')
    .replace(/^[-.]+|[-.]+$/g, '');
}

function nameHash(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 8);
}
