import OpenAI from 'openai';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  ReplayAssertionError,
  assertAllConsumed,
  assertNeverCalledUpstream,
  assertNoDrift,
  assertRenderedExactly,
  assertReplayedStrictly,
  modeltapeMatchers,
  openTape,
  type ModeltapeMatchers,
} from 'modeltape/replay';
import { loadTape } from 'modeltape/recordings';
import { closeAfterEach } from '../support/close-after-each.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

expect.extend(modeltapeMatchers);
declare module 'vitest' {
  interface Assertion<T> extends ModeltapeMatchers<T> {}
}

const chat = (client: OpenAI, content: string) =>
  client.chat.completions.create({
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content },
    ],
  });

describe('replay assertions', () => {
  const dir = tempDir({ scope: 'file' });
  const started = closeAfterEach();
  let tape: string;
  beforeAll(async () => {
    tape = `${dir}/two.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      const client = new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 });
      await chat(client, 'first question');
      await chat(client, 'second question');
    });
  });

  test('all pass on a strict replay that used every recording', async () => {
    const session = started(await openTape(tape, { config: false }));
    const client = new OpenAI({ apiKey: 'k', fetch: session.fetch, maxRetries: 0 });
    await chat(client, 'first question');
    await chat(client, 'second question');
    assertNeverCalledUpstream(session);
    assertAllConsumed(session);
    assertNoDrift(session);
    assertReplayedStrictly(session);
    expect(session).toHaveReplayedStrictly();
    expect(session).toHaveNeverCalledUpstream();
  });

  test('an assertion that saw no request fails: it checked nothing', async () => {
    const session = started(await openTape(tape, { config: false }));
    expect(() => assertNeverCalledUpstream(session)).toThrow(/no request reached the tape .* the assertion checked nothing/);
    expect(() => expect(session).toHaveReplayedStrictly()).toThrow(/checked nothing/);
  });

  test('assertAllConsumed lists the unused recordings as a table of line, endpoint, ordinal and prompt', async () => {
    const session = started(await openTape(tape, { config: false }));
    await chat(new OpenAI({ apiKey: 'k', fetch: session.fetch, maxRetries: 0 }), 'first question');
    const error = (() => {
      try {
        assertAllConsumed(session);
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ReplayAssertionError);
    expect(error!.message).toContain('1 recorded exchange was never used:');
    expect(error!.message).toMatch(/line\s+endpoint\s+ordinal\s+prompt/);
    // The message that tells the turns apart (the last user message), not the system prompt every row shares.
    expect(error!.message).toMatch(/3\s+POST \/v1\/chat\/completions \(openai\)\s+0\s+second question\n/);
    expect(error!.message).not.toContain('You are terse.');
  });

  test('a tape recorded twice replaces its recording; one recorded twice with append fails its replay with the way out: prune, or delete and record anew', async () => {
    const twice = `${dir}/twice.jsonl`;
    const ask = async ({ openai }: { openai: string }) => void (await chat(new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 }), 'same question'));
    await recordTape(twice, ask);
    await recordTape(twice, ask);
    expect(loadTape(twice).exchanges).toHaveLength(1);
    await recordTape(twice, ask, { proxy: { append: true } });
    expect(loadTape(twice).exchanges).toHaveLength(2);
    const session = started(await openTape(twice, { config: false }));
    await chat(new OpenAI({ apiKey: 'k', fetch: session.fetch, maxRetries: 0 }), 'same question');
    expect(() => assertReplayedStrictly(session)).toThrow(
      /1 recorded exchange was never used:[\s\S]*no longer sends these requests \(or sends them fewer times\)[\s\S]*close\(\{ prune: true \}\)[\s\S]*delete the tape/,
    );
  });

  test('assertNoDrift shows each miss with its differing path', async () => {
    const session = started(await openTape(tape, { config: false }));
    await chat(new OpenAI({ apiKey: 'k', fetch: session.fetch, maxRetries: 0 }), 'first question, drifted').catch(() => undefined);
    expect(() => assertNoDrift(session)).toThrow(/at \.messages\[1\]\.content: recorded "first question" sent "first question, drifted"/);
    expect(() => expect(session).toHaveNoDrift()).toThrow(/first question, drifted/);
  });

  test('assertNeverCalledUpstream fails after a passthrough run, naming the connections', async () => {
    const passed = `${dir}/passed.jsonl`;
    const { startStandInUpstream } = await import('../support/stand-in-upstream.js');
    const standIn = await startStandInUpstream();
    const session = started(await openTape(passed, { mode: 'passthrough', config: false, upstreams: { openai: standIn.url } }));
    await chat(new OpenAI({ apiKey: 'k', fetch: session.fetch, maxRetries: 0 }), 'hi');
    expect(() => assertNeverCalledUpstream(session)).toThrow(/1 connection was opened to an upstream \(mode passthrough\)[\s\S]*1 request was passed through/);
    await session.close();
    await standIn.close();
  });

  test('assertRenderedExactly compares raw bytes, and explains the difference structurally', () => {
    const { exchanges } = loadTape(tape);
    expect(exchanges).toHaveLength(2);
    const { exchange } = exchanges[0]!;
    const sent = JSON.stringify({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'first question' },
      ],
    });
    assertRenderedExactly(sent, exchange);
    // The same JSON, other key order: not the same bytes.
    const reordered = JSON.stringify({
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'first question' },
      ],
      model: 'gpt-4o',
    });
    expect(() => assertRenderedExactly(reordered, exchange)).toThrow(/the JSON values are the same; only the bytes differ/);
    const changed = JSON.stringify({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'other question' },
      ],
    });
    expect(() => assertRenderedExactly(changed, exchange)).toThrow(/at \.messages\[1\]\.content: recorded "first question" sent "other question"/);
    assertRenderedExactly(Buffer.from('abc'), Buffer.from('abc'));
    expect(() => assertRenderedExactly('abd', 'abc')).toThrow(ReplayAssertionError);
  });
});
