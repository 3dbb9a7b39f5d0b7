import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ModeltapeError } from '../core/internal.js';
import { openTapePerTest, type TapePerTestOptions } from './open-tape-per-test.js';
import type { TapeSession } from './open-tape.js';

const dir = mkdtempSync(join(tmpdir(), 'modeltape-tape-per-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A runner whose hooks the test calls itself; the tapes record (auto, no CI) into a fresh folder.
function perTest(options: TapePerTestOptions = {}) {
  let open: (() => Promise<void>) | undefined;
  let close: ((passed: boolean) => Promise<void>) | undefined;
  const tape = openTapePerTest(
    { beforeEach: (hook) => (open = hook), afterEach: (hook) => (close = hook) },
    { dir: mkdtempSync(join(dir, 'tapes-')), mode: 'auto', env: {}, config: false, ...options },
  );
  return { tape, before: () => open!(), after: (passed: boolean) => close!(passed) };
}

const codeOf = (error: unknown) => (ModeltapeError.isInstance(error) ? error.code : String(error));
// A closed session's proxy (recording goes over loopback) refuses connections.
const closed = async (session: TapeSession) =>
  ((await fetch(session.baseUrls.url).catch((error: unknown) => error)) as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';

describe('openTapePerTest', () => {
  test('outside a test, its handle says so instead of reaching a session', async () => {
    const { tape } = perTest();
    expect(() => tape.baseUrls).toThrow(/tapePerTest\(\) has no tape open for baseUrls/);
    expect(() => tape.session).toThrow(ModeltapeError);
    expect(codeOf(await tape.fetch('https://api.openai.com/v1/models').catch((error: unknown) => error))).toBe('no_current_test');
  });

  test('a test that passed is held to the strict check, and its tape is closed all the same', async () => {
    const { tape, before, after } = perTest();
    await before();
    const session: TapeSession = tape.session;
    expect(tape.baseUrls.openai).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/openai\/v1$/);
    const failure = await after(true).catch((error: unknown) => error);
    expect(codeOf(failure)).toBe('replay_assertion');
    expect((failure as Error).message).toContain('the assertion checked nothing');
    expect(await closed(session)).toBe(true);
    expect(() => tape.session).toThrow(/no tape open/);
  });

  test('a test that failed is not checked again, and its tape is closed', async () => {
    const { tape, before, after } = perTest();
    await before();
    const session = tape.session;
    expect(await closed(session)).toBe(false);
    await expect(after(false)).resolves.toBeUndefined();
    expect(await closed(session)).toBe(true);
  });

  test('strict: false only opens and closes', async () => {
    const { before, after } = perTest({ strict: false });
    await before();
    await expect(after(true)).resolves.toBeUndefined();
  });

  test('a test that starts while another one holds the tape is refused, naming the tape', async () => {
    const { tape, before, after } = perTest();
    await before();
    const failure = await before().catch((error: unknown) => error);
    expect(codeOf(failure)).toBe('concurrent_tape_per_test');
    expect((failure as Error).message).toContain(tape.session.file);
    await after(false);
  });

  test('an afterEach whose beforeEach never opened a tape leaves the error to the test', async () => {
    const { after } = perTest();
    await expect(after(false)).resolves.toBeUndefined();
    await expect(after(true)).resolves.toBeUndefined();
  });
});
