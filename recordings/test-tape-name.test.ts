import { describe, expect, test } from 'vitest';
import { safeFileName, testNameOf } from './test-tape-name.js';

describe('a test name read back from its tape file name', () => {
  const titles = ['checkout', 'pays with a card', 'refunds €10 — twice', 're-records', 'Weather'];

  test('finds the titles it was made from, joined as Vitest and Jest join them, checked by the hash', () => {
    for (const name of ['checkout > pays with a card', 'checkout > refunds €10 — twice', 'checkout pays with a card', 'checkout > re-records']) {
      expect(testNameOf(safeFileName(name), titles)).toBe(name);
    }
  });

  test('a name kept whole is its file name; a long one cut at 120 characters is still found', () => {
    expect(testNameOf('Weather', titles)).toBe('Weather');
    expect(testNameOf('weather', [])).toBe('weather');
    const long = `checkout > ${'a very long title '.repeat(10).trim()}`;
    expect(safeFileName(long).length).toBe(129);
    expect(testNameOf(safeFileName(long), [...titles, long.slice('checkout > '.length)])).toBe(long);
  });

  test('without its titles (a title built at run time, no test file), the file name is read back as well as it can be', () => {
    expect(testNameOf(safeFileName('checkout > pays with a card'), [])).toBe('checkout > pays with a card');
    expect(testNameOf(safeFileName('checkout > refunds €10'), [])).toBe('checkout > refunds 10');
    // Titles that do not make the name are not taken for it.
    expect(testNameOf(safeFileName('checkout > pays with cash'), titles)).toBe('checkout > pays with cash');
  });
});
