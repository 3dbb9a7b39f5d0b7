import OpenAI from 'openai';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  REPLAY_PLACEHOLDER_KEY,
  assertAllConsumed,
  assertNeverCalledUpstream,
  assertReplayedStrictly,
  modeltapeMatchers,
  openTape,
  type ModeltapeMatchers,
} from 'modeltape/replay';
import { closeAfterEach } from '../support/close-after-each.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

expect.extend(modeltapeMatchers);
declare module 'vitest' {
  interface Assertion<T> extends ModeltapeMatchers<T> {}
}

const ask = (client: OpenAI, content: string) => client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] });

describe('the recording workflow is green on its first run', () => {
  const dir = tempDir();
  const started = closeAfterEach();
  const written: string[] = [];
  afterEach(() => {
    written.length = 0;
    vi.restoreAllMocks();
  });
  const captureStderr = () =>
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });

  test('in auto mode the assertions and matchers pass, saying what was recorded; replayed, the same test is strict', async () => {
    const standIn = started(await startStandInUpstream());
    const tape = `${dir}/first-run.jsonl`;
    const recording = await openTape(tape, { mode: 'auto', allowRecordInCi: true, config: false, upstreams: { openai: standIn.url } });
    await ask(new OpenAI({ apiKey: 'k', fetch: recording.fetch, maxRetries: 0 }), 'first');
    captureStderr();
    assertReplayedStrictly(recording);
    assertNeverCalledUpstream(recording);
    expect(recording).toHaveReplayedStrictly();
    vi.restoreAllMocks();
    // Said once for the three assertions, and again once the session has recorded more.
    const note = (recorded: string) =>
      `modeltape: tape ${tape} (mode auto): recorded ${recorded}, replayed 0. The replay assertions pass while recording and are strict when the tape is replayed.\n`;
    expect(written).toEqual([note('1 exchange')]);
    await ask(new OpenAI({ apiKey: 'k', fetch: recording.fetch, maxRetries: 0 }), 'another');
    captureStderr();
    assertReplayedStrictly(recording);
    expect(recording).toHaveNoDrift();
    vi.restoreAllMocks();
    expect(written).toEqual([note('1 exchange'), note('2 exchanges')]);
    await recording.close();

    // Replayed: the same assertions hold, and now they are strict.
    const replay = started(await openTape(tape, { config: false, upstreams: { openai: standIn.url } }));
    await ask(new OpenAI({ apiKey: 'k', fetch: replay.fetch, maxRetries: 0 }), 'first');
    await ask(new OpenAI({ apiKey: 'k', fetch: replay.fetch, maxRetries: 0 }), 'another');
    assertReplayedStrictly(replay);
    const strictUnused = started(await openTape(tape, { config: false, upstreams: { openai: standIn.url } }));
    await expect(ask(new OpenAI({ apiKey: 'k', fetch: strictUnused.fetch, maxRetries: 0 }), 'second')).rejects.toThrow(/no recorded exchange matches/);
    expect(() => assertReplayedStrictly(strictUnused)).toThrow(/drifted|did not replay strictly/);
    expect(() => assertAllConsumed(strictUnused)).toThrow(/2 recorded exchanges were never used/);
    expect(standIn.received).toHaveLength(2);
  });

  test('auto replays without a real key, and a miss that needs recording without a key says exactly that and sends nothing', async () => {
    const standIn = started(await startStandInUpstream());
    const tape = `${dir}/keyless.jsonl`;
    const recording = await openTape(tape, { mode: 'auto', allowRecordInCi: true, config: false, upstreams: { openai: standIn.url } });
    await ask(new OpenAI({ apiKey: 'real-looking-local-key', fetch: recording.fetch, maxRetries: 0 }), 'known');
    await recording.close();

    const keyless = started(
      await openTape(tape, { mode: 'auto', allowRecordInCi: true, config: false, upstreams: { openai: standIn.url }, log: () => undefined }),
    );
    const client = new OpenAI({ apiKey: REPLAY_PLACEHOLDER_KEY, fetch: keyless.fetch, maxRetries: 0 });
    // What the tape holds replays with the placeholder key...
    expect((await ask(client, 'known')).choices[0]!.message.content).toBeTruthy();
    // ...and what it does not hold is not sent to the provider with a key that cannot work.
    const error = (await ask(client, 'unknown').catch((caught: unknown) => caught)) as Error;
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.message).toContain('is not on the tape');
    expect(error.message).toContain('needs recording, but no real key is set');
    expect(error.message).toContain('Set OPENAI_API_KEY to a real key and run again in auto mode');
    expect(standIn.received).toHaveLength(1);
    expect(keyless.summary()).toMatchObject({ hits: 1, misses: 1, recorded: 0 });
  });

  test('close({ prune: true }) in auto mode drops what the session never used, and says which', async () => {
    const standIn = started(await startStandInUpstream());
    const tape = `${dir}/prune.jsonl`;
    const first = await openTape(tape, { mode: 'auto', allowRecordInCi: true, config: false, upstreams: { openai: standIn.url } });
    const client = (session: { fetch: typeof fetch }) => new OpenAI({ apiKey: 'k', fetch: session.fetch, maxRetries: 0 });
    await ask(client(first), 'kept');
    await ask(client(first), 'stale');
    await first.close();

    const logged: string[] = [];
    const second = await openTape(tape, {
      mode: 'auto',
      allowRecordInCi: true,
      config: false,
      upstreams: { openai: standIn.url },
      log: (message) => logged.push(message),
    });
    await ask(client(second), 'kept');
    const summary = await second.close({ prune: true });
    expect(summary.pruned).toBe(1);
    expect(logged.join('\n')).toMatch(
      new RegExp(
        `modeltape: pruned ${tape.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: dropped 1 exchange this run never used:\\n  line 3: POST /v1/chat/completions \\(openai\\) #0`,
      ),
    );
  });
});
