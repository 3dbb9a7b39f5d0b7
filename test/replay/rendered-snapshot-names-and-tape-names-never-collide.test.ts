import { describe, expect, test } from 'vitest';
import { safeFileName, tapeForCurrentTest } from 'modeltape/replay';

// tapeForCurrentTest and assertRenderedSnapshot both name files with safeFileName: two names
// that collide share one tape (ordinals interleave) or one golden file (each overwrites the other).
describe('file names made from test names', () => {
  test('non-Latin test names do not all become test.jsonl', () => {
    expect(tapeForCurrentTest({ dir: 't', name: '注文を確定する' })).not.toBe(tapeForCurrentTest({ dir: 't', name: '注文を取り消す' }));
  });

  test('names that differ only in punctuation or symbols stay apart', () => {
    expect(safeFileName('refund €10')).not.toBe(safeFileName('refund $10'));
    expect(safeFileName('a/b')).not.toBe(safeFileName('a b'));
  });

  test('long names that share their first 150 characters stay apart', () => {
    const prefix = 'x'.repeat(150);
    expect(safeFileName(`${prefix} one`)).not.toBe(safeFileName(`${prefix} two`));
  });
});
