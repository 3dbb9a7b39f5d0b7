import { describe, expect, test } from 'vitest';
import { checkArgumentsValue, parseToolArguments } from './tool-arguments.js';

describe('parseToolArguments', () => {
  test('parses what JSON.parse parses, to the same value', () => {
    for (const text of [
      '{}',
      '[]',
      '{"city":"Paris","days":[1,2.5,-3e-2],"ok":true,"none":null}',
      ' "x" ',
      '0',
      '{"a":{"b":{"c":"\\u00e9\\ud83d\\ude00\\n"}}}',
      '{"__proto__":{"x":1}}',
    ]) {
      const parsed = parseToolArguments(text);
      expect(parsed, text).toEqual({ ok: true, value: JSON.parse(text) });
    }
    const proto = parseToolArguments('{"__proto__":{"polluted":true}}');
    expect(proto.ok && Object.keys(proto.value as object)).toEqual(['__proto__']);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  test('refuses what a tool must never see, saying why', () => {
    const refusals: Array<[string | Uint8Array, string]> = [
      ['{"to":"ana","to":"bob"}', 'duplicate key "to" in the object at (arguments)'],
      ['{"a":{"b":1,"b":2}}', 'duplicate key "b" in the object at .a'],
      [`${'['.repeat(300)}${']'.repeat(300)}`, 'the arguments nest deeper than 256 levels (at [0][0]'],
      ['{"text":"\\ud800"}', 'an unpaired surrogate in the string at .text'],
      ['{"text":"\\udc00x"}', 'an unpaired surrogate in the string at .text'],
      ['{"city":"Par', 'the arguments end early (truncated JSON): a string is not closed'],
      ['{"city":"Paris"', 'the arguments end early (truncated JSON): expected "," or "}"'],
      ['{"a":1} {"a":2}', 'the arguments hold more than one JSON value (a second one starts at character 8)'],
      ['', 'the arguments are empty'],
      ['{"a":"tab\there"}', 'a control character in a string at character 9'],
      ['{"a":01}', 'expected "," or "}" at character 6'],
      [new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), 'the arguments are not valid UTF-8'],
    ];
    for (const [raw, reason] of refusals) {
      const parsed = parseToolArguments(raw);
      expect(parsed.ok, String(raw).slice(0, 40)).toBe(false);
      expect(!parsed.ok && parsed.reason, String(raw).slice(0, 40)).toContain(reason);
    }
    expect(parseToolArguments(`${'['.repeat(256)}${']'.repeat(256)}`).ok).toBe(true);
  });

  test('checkArgumentsValue holds an already parsed value to the same depth and surrogate rules', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 300; level++) deep = [deep];
    expect(checkArgumentsValue(deep as never)).toMatch(/^the arguments nest deeper than 256 levels/);
    expect(checkArgumentsValue({ text: 'a\ud800' })).toBe('an unpaired surrogate in the string at .text');
    expect(checkArgumentsValue({ text: 'ok 😀' })).toBeUndefined();
  });
});
