import { describe, expect, test } from 'vitest';
import { DEFAULT_HISTORY_LIMIT, FakeHistoryTruncatedError, FakeProvider } from 'modeltape/fake-provider';

const padding = 'The parcel went through Lyon, Dijon and Paris. '.repeat(100); // about 5 KB

function request(n: number): { method: string; path: string; headers: Record<string, string>; body: string } {
  return {
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: `Request ${n}: ${padding}` }] }),
  };
}

function thrown(read: () => unknown): unknown {
  try {
    read();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the FakeProvider history', () => {
  test('50,000 large requests keep the latest historyLimit calls and turns, and say how many were dropped', () => {
    const fake = new FakeProvider();
    const total = 50_000;
    let answered = 0;
    for (let n = 0; n < total; n++) if (fake.answer(request(n)).status === 200) answered++;
    expect(answered).toBe(total);
    expect(fake.callCount).toBe(total);
    const calls = fake.calls({ latest: true });
    const turns = fake.asked({ latest: true });
    expect([calls.length, calls.dropped, turns.length, turns.dropped]).toEqual([
      DEFAULT_HISTORY_LIMIT,
      total - DEFAULT_HISTORY_LIMIT,
      DEFAULT_HISTORY_LIMIT,
      total - DEFAULT_HISTORY_LIMIT,
    ]);
    expect(DEFAULT_HISTORY_LIMIT).toBe(1000);
    expect(calls[0]!.index).toBe(total - DEFAULT_HISTORY_LIMIT);
    expect(calls.at(-1)!.index).toBe(total - 1);
    expect(turns.at(-1)!.index).toBe(total - 1);
    expect(JSON.stringify(turns.at(-1)!.messages)).toContain(`Request ${total - 1}: `);
    expect(fake.problems()).toHaveLength(0);
  });

  test('reading the whole history after some was dropped fails, saying what was kept and what to do', () => {
    const fake = new FakeProvider({ historyLimit: 10 });
    for (let n = 0; n < 10; n++) fake.answer(request(n));
    expect(fake.calls()).toHaveLength(10);
    expect(fake.calls().dropped).toBe(0);
    fake.answer(request(10));
    const error = thrown(() => fake.calls());
    expect(error).toBeInstanceOf(FakeHistoryTruncatedError);
    expect((error as FakeHistoryTruncatedError).code).toBe('fake_history_truncated');
    expect((error as Error).message).toBe(
      'FakeProvider calls(): the fake kept the latest 10 of 11 (historyLimit 10); the first 1 were dropped, so an assertion over all of them would check only part.\n' +
        'Raise historyLimit (new FakeProvider({ historyLimit: 11 }), or Infinity) to keep them all, or read calls({ latest: true }) to assert over the kept ones (its .dropped says how many are missing).',
    );
    expect((thrown(() => fake.asked()) as Error).message).toMatch(/^FakeProvider asked\(\): the fake kept the latest 10 of 11 /);
    expect(fake.calls({ latest: true }).map((call) => call.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  test('problems keep the first historyLimit, and assertConsumed still counts every one', () => {
    const fake = new FakeProvider({ historyLimit: 5 }).willSay('Only once.');
    for (let n = 0; n < 20; n++) fake.answer(request(n));
    const problems = fake.problems();
    expect([problems.length, problems.dropped]).toEqual([5, 14]);
    expect(problems[0]).toMatch(/^FakeProvider script ran out at call 1 /);
    const error = thrown(() => fake.assertConsumed()) as Error;
    expect(error.message).toContain('… and 14 more problems, not kept (historyLimit 5)');
    expect(error.message.match(/script ran out/g)).toHaveLength(5);
  });

  test('Infinity keeps every call, as before, and an invalid limit is refused', () => {
    const fake = new FakeProvider({ historyLimit: Number.POSITIVE_INFINITY });
    for (let n = 0; n < 1500; n++) fake.answer(request(n));
    expect(fake.calls()).toHaveLength(1500);
    expect(fake.asked()).toHaveLength(1500);
    expect(() => new FakeProvider({ historyLimit: -1 })).toThrow('Invalid historyLimit -1');
  });
});
