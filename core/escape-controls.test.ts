import { describe, expect, test } from 'vitest';
import { escapeControls } from './escape-controls.js';

describe('escapeControls', () => {
  test('writes C0, DEL and C1 controls as JSON escapes, and keeps the line feed and the tab', () => {
    expect(escapeControls('a\u001b[2Jb\u001b]0;t\u0007c\u009b31md\u0000e\rf\u007f\u0085\n\tg')).toBe(
      'a\\u001b[2Jb\\u001b]0;t\\u0007c\\u009b31md\\u0000e\\rf\\u007f\\u0085\n\tg',
    );
  });

  test('gives back the same string when there is nothing to escape, and keeps JSON the same JSON', () => {
    const plain = 'plain text, “quoted” — and ünïcödé\n';
    expect(escapeControls(plain)).toBe(plain);
    const value = { text: 'red \u009b31m and \u007f', nested: ['\u0085'] };
    expect(JSON.parse(escapeControls(JSON.stringify(value)))).toEqual(value);
  });
});
