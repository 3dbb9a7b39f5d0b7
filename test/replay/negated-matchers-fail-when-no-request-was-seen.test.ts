import { describe, expect, test } from 'vitest';
import { modeltapeMatchers, openTape, type ModeltapeMatchers } from 'modeltape/replay';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

expect.extend(modeltapeMatchers);
declare module 'vitest' {
  interface Assertion<T> extends ModeltapeMatchers<T> {}
}

describe('the matchers with .not', () => {
  const dir = tempDir();

  test('expect(session).not.toHaveNoDrift() fails when no request reached the session: it checked nothing', async () => {
    const tape = `${dir}/nothing.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await (
        await fetch(`${openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"gpt-4o","messages":[]}' })
      ).arrayBuffer();
    });
    const session = await openTape(tape, { config: false });
    // The client was pointed elsewhere: the session saw nothing. A test meant to prove that a
    // changed prompt drifts must not pass here.
    await session.close();
    expect(session.summary()).toMatchObject({ hits: 0, misses: 0 });
    expect(() => expect(session).not.toHaveNoDrift()).toThrow(/checked nothing/);
    expect(() => expect(session).not.toHaveConsumedAllExchanges()).toThrow(/checked nothing/);
  });
});
