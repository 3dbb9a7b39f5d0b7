import { createHash } from 'node:crypto';
import { basename, dirname, extname, join } from 'node:path';
import { ModeltapeError } from '../recordings/index.js';

/** The running test, as Vitest's and Jest's `expect.getState()` tell it. */
export interface CurrentTest {
  /** e.g. `checkout > pays with a card` (Vitest) or `checkout pays with a card` (Jest). */
  name: string;
  /** The test file. */
  file: string;
}

/** The running Vitest or Jest test, or undefined outside one. */
export function currentTest(): CurrentTest | undefined {
  // Jest (and Vitest with globals) put `expect` on globalThis; Vitest always keeps its global
  // expect under Symbol.for('expect-global').
  type ExpectLike = { getState?: () => { currentTestName?: string; testPath?: string } };
  const holder = globalThis as unknown as Record<string | symbol, ExpectLike | undefined>;
  const state = (holder.expect ?? holder[Symbol.for('expect-global')])?.getState?.();
  if (!state?.currentTestName || !state.testPath) return undefined;
  return { name: state.currentTestName, file: state.testPath };
}

/**
 * A tape path named after the running test, so each recording maps back to its test:
 * `<test dir>/__tapes__/<test file>/<test name>.jsonl` (or under `dir`). Works in Vitest and Jest
 * (it reads `expect.getState()`); with `node:test`, pass the name yourself.
 *
 * @example const session = await openTape(tapeForCurrentTest());
 */
export function tapeForCurrentTest(options: { dir?: string; name?: string } = {}): string {
  const test = currentTest();
  const name = options.name ?? test?.name;
  if (name === undefined) {
    throw new ModeltapeError('no_current_test', 'tapeForCurrentTest() found no running Vitest or Jest test (expect.getState() has no test name). Call it inside a test, or pass { name }.');
  }
  const base = options.dir ?? (test ? join(dirname(test.file), '__tapes__', basename(test.file, extname(test.file))) : '__tapes__');
  return join(base, `${safeFileName(name)}.jsonl`);
}

/**
 * A test name as a file name: letters and digits of any script kept, everything else turned to
 * `-`. When anything was replaced or the name was cut, a short hash of the whole name is added,
 * so two different names never share a file ("refund €10" and "refund $10" stay apart).
 */
export function safeFileName(name: string): string {
  const cleaned = name
    .replace(/\s+>\s+/g, '--')
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/-{3,}/g, '--')
    .replace(/^[-.]+|[-.]+$/g, '');
  const readable = cleaned.slice(0, 120);
  const lossless = readable === name;
  if (lossless && readable !== '') return readable;
  return `${readable || 'test'}-${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}
