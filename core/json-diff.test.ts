import { describe, expect, test } from 'vitest';
import { abbreviate, describeStringChange, diffJson, formatDifference, formatDifferences, type Difference } from './json-diff.js';

function chatRequest(): Record<string, unknown> {
  return {
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Where is my parcel?' },
      { role: 'user', content: 'Ship to Paris' },
    ],
    tools: [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
    ],
    temperature: 0,
  };
}

describe('diffJson', () => {
  test('lists nothing for equal values', () => {
    expect(diffJson(chatRequest(), chatRequest())).toEqual([]);
    expect(diffJson(null, null)).toEqual([]);
  });

  test('lists only the leaf that differs, by its JSON path', () => {
    const sent = chatRequest();
    (sent.messages as Array<{ content: string }>)[2]!.content = 'Ship to Lyon';
    expect(diffJson(chatRequest(), sent)).toEqual([{ path: '.messages[2].content', change: 'changed', recorded: 'Ship to Paris', sent: 'Ship to Lyon' }]);
  });

  test('reaches deep into tool schemas', () => {
    const sent = chatRequest();
    const tools = sent.tools as Array<{ function: { parameters: { properties: Record<string, unknown> } } }>;
    tools[0]!.function.parameters.properties.city = { type: 'string', description: 'A city' };
    expect(diffJson(chatRequest(), sent)).toEqual([{ path: '.tools[0].function.parameters.properties.city.description', change: 'added', sent: 'A city' }]);
    tools[0]!.function.parameters.properties.city = 'Paris';
    expect(diffJson(chatRequest(), sent)).toEqual([
      { path: '.tools[0].function.parameters.properties.city', change: 'kind', recorded: { type: 'string' }, sent: 'Paris' },
    ]);
  });

  test('reports a number on one side and text on the other as a change of kind', () => {
    expect(diffJson({ max_tokens: 100 }, { max_tokens: '100' })).toEqual([{ path: '.max_tokens', change: 'kind', recorded: 100, sent: '100' }]);
    expect(diffJson([null], [{}])).toEqual([{ path: '[0]', change: 'kind', recorded: null, sent: {} }]);
    expect(diffJson({ a: [] }, { a: {} })).toEqual([{ path: '.a', change: 'kind', recorded: [], sent: {} }]);
  });

  test('reports added and removed properties', () => {
    expect(diffJson({ a: 1, b: 2 }, { b: 2, c: 3 })).toEqual([
      { path: '.a', change: 'removed', recorded: 1 },
      { path: '.c', change: 'added', sent: 3 },
    ]);
  });

  test('reports added and removed array elements after comparing the shared ones', () => {
    expect(diffJson({ m: [1, 2, 3] }, { m: [1, 9] })).toEqual([
      { path: '.m[1]', change: 'changed', recorded: 2, sent: 9 },
      { path: '.m[2]', change: 'removed', recorded: 3 },
    ]);
    expect(diffJson({ m: ['a'] }, { m: ['a', 'b', { c: 1 }] })).toEqual([
      { path: '.m[1]', change: 'added', sent: 'b' },
      { path: '.m[2]', change: 'added', sent: { c: 1 } },
    ]);
  });

  test('quotes property names that are not identifiers', () => {
    expect(diffJson({ 'anthropic-beta': 'a', 'odd key': { x: 1 } }, { 'anthropic-beta': 'b', 'odd key': { x: 2 } }).map(({ path }) => path)).toEqual([
      '["anthropic-beta"]',
      '["odd key"].x',
    ]);
  });

  test('stops after the given number of differences', () => {
    const recorded = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`k${index}`, index]));
    const sent = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`k${index}`, -index - 1]));
    expect(diffJson(recorded, sent)).toHaveLength(30);
    expect(diffJson(recorded, sent, { stopAfter: 4 }).map(({ path }) => path)).toEqual(['.k0', '.k1', '.k2', '.k3']);
    expect(diffJson([1, 2, 3], [], { stopAfter: 2 })).toHaveLength(2);
  });

  test('compares booleans and numbers by value', () => {
    expect(diffJson({ stream: true, n: 1.5 }, { stream: false, n: 1.5 })).toEqual([{ path: '.stream', change: 'changed', recorded: true, sent: false }]);
  });
});

describe('formatDifference', () => {
  test('shows a short text change with both values', () => {
    expect(formatDifference({ path: '.messages[1].content', change: 'changed', recorded: 'Ship to Paris', sent: 'Ship to Lyon' })).toBe(
      'at .messages[1].content: recorded "Ship to Paris" sent "Ship to Lyon"',
    );
  });

  test('says a number was sent as text', () => {
    expect(formatDifference({ path: '.max_tokens', change: 'kind', recorded: 100, sent: '100' })).toBe(
      'at .max_tokens: recorded a number (100) sent text ("100")',
    );
    expect(formatDifference({ path: '.tools', change: 'kind', recorded: [], sent: null })).toBe('at .tools: recorded an array ([]) sent null (null)');
  });

  test('says what was added and what was removed', () => {
    expect(formatDifference({ path: '.stream', change: 'added', sent: true })).toBe('at .stream: not recorded, sent true');
    expect(formatDifference({ path: '.messages[3]', change: 'removed', recorded: { role: 'user' } })).toBe(
      'at .messages[3]: recorded {"role":"user"}, not sent',
    );
  });

  test('names the root when the whole value differs', () => {
    expect(formatDifference({ path: '', change: 'changed', recorded: 1, sent: 2 })).toBe('at (the whole value): recorded 1 sent 2');
  });
});

describe('describeStringChange', () => {
  test('says where two short strings first differ once it is past the start', () => {
    const recorded = 'Please summarise the following text: apples';
    const sent = 'Please summarise the following text: pears';
    expect(describeStringChange(recorded, sent)).toBe(`recorded ${JSON.stringify(recorded)} sent ${JSON.stringify(sent)} (first differs at character 37)`);
    expect(describeStringChange('abc', 'abd')).toBe('recorded "abc" sent "abd"');
  });

  test('shows long strings around where they first differ, with ellipses', () => {
    const prefix = 'You are a helpful assistant. '.repeat(10);
    const recorded = `${prefix}Today is 2024-01-01. ${'Answer briefly. '.repeat(10)}`;
    const sent = `${prefix}Today is 2025-06-30. ${'Answer briefly. '.repeat(10)}`;
    const first = prefix.length + 'Today is 202'.length;
    const described = describeStringChange(recorded, sent);
    expect(described).toContain(`(first differs at character ${first})`);
    expect(described).toMatch(/^recorded "…[^"]*Today is 2024-01-01[^"]*…" sent "…[^"]*Today is 2025-06-30[^"]*…"/);
    expect(described.length).toBeLessThan(2 * 80 + 80);
    expect(described).not.toContain(prefix.slice(0, 40));
  });

  test('escapes newlines and quotes in the excerpt', () => {
    const recorded = `${'x'.repeat(100)}line one\n"quoted"`;
    const sent = `${'x'.repeat(100)}line two\n"quoted"`;
    expect(describeStringChange(recorded, sent)).toContain('line one\\n\\"quoted\\"');
  });
});

describe('abbreviate', () => {
  test('keeps short values whole, as JSON', () => {
    expect(abbreviate('Paris')).toBe('"Paris"');
    expect(abbreviate({ a: [1, 2] })).toBe('{"a":[1,2]}');
    expect(abbreviate(undefined)).toBe('nothing');
  });

  test('cuts a large value in the middle, keeping both ends and the full length', () => {
    const value = { start: 'BEGIN', filler: 'x'.repeat(5000), end: 'FINISH' };
    const text = JSON.stringify(value);
    const short = abbreviate(value, 80);
    expect(short.startsWith(text.slice(0, 39))).toBe(true);
    expect(short.endsWith(text.slice(-39))).toBe(true);
    expect(short).toContain(`…(${text.length.toLocaleString('en-US')} chars)…`);
    expect(short).toContain('BEGIN');
    expect(short).toContain('FINISH');
    expect(short.length).toBeLessThan(120);
  });
});

describe('formatDifferences', () => {
  function many(count: number): Difference[] {
    return Array.from({ length: count }, (_, index) => ({
      path: `.messages[${index}].content`,
      change: 'changed' as const,
      recorded: `a${index}`,
      sent: `b${index}`,
    }));
  }

  test('shows at most 10 lines and counts the rest', () => {
    const lines = formatDifferences(many(25));
    expect(lines).toHaveLength(11);
    expect(lines[0]).toBe('at .messages[0].content: recorded "a0" sent "b0"');
    expect(lines[9]).toBe('at .messages[9].content: recorded "a9" sent "b9"');
    expect(lines[10]).toBe('… and 15 more differences');
  });

  test('counts the rest from the total when only some differences were collected', () => {
    expect(formatDifferences(many(3), 4)).toEqual([...formatDifferences(many(3)), '… and 1 more difference']);
  });

  test('shows every line when there are 10 or fewer', () => {
    expect(formatDifferences(many(10))).toHaveLength(10);
    expect(formatDifferences([])).toEqual([]);
  });

  test('honours a custom limit and width', () => {
    const lines = formatDifferences([{ path: '.a', change: 'added', sent: 'y'.repeat(100) }, ...many(2)], 3, { limit: 1, width: 20 });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('(102 chars)');
    expect(lines[1]).toBe('… and 2 more differences');
  });
});
