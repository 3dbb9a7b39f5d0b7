import { describe, expect, test } from 'vitest';
import { indexPath, propertyPath } from './json-path.js';
import { ModeltapeError } from './modeltape-error.js';
import { parseJsonPath } from './parse-json-path.js';

describe('parseJsonPath', () => {
  test('parses properties, indexes and wildcards in a chain', () => {
    expect(parseJsonPath('.a.b[0][*].c')).toEqual([{ property: 'a' }, { property: 'b' }, { index: 0 }, { wildcard: true }, { property: 'c' }]);
  });

  test('parses a quoted property name holding characters a dotted name cannot', () => {
    expect(parseJsonPath('["odd key"]')).toEqual([{ property: 'odd key' }]);
    expect(parseJsonPath('.headers["x.y"]["say \\"hi\\""]')).toEqual([{ property: 'headers' }, { property: 'x.y' }, { property: 'say "hi"' }]);
  });

  test('parses .* as a wildcard over properties', () => {
    expect(parseJsonPath('.*')).toEqual([{ wildcard: true }]);
    expect(parseJsonPath('.tools.*.name')).toEqual([{ property: 'tools' }, { wildcard: true }, { property: 'name' }]);
  });

  test('accepts hyphens, digits, $ and _ inside a dotted property name', () => {
    expect(parseJsonPath('.anthropic-beta.$ref._x1')).toEqual([{ property: 'anthropic-beta' }, { property: '$ref' }, { property: '_x1' }]);
  });

  test('treats the empty string and "." as the root', () => {
    expect(parseJsonPath('')).toEqual([]);
    expect(parseJsonPath('.')).toEqual([]);
  });

  test('parses multi-digit indexes as numbers', () => {
    expect(parseJsonPath('.messages[12].content')).toEqual([{ property: 'messages' }, { index: 12 }, { property: 'content' }]);
  });

  test.each([
    ['messages[0]', 0],
    ['.a..b', 2],
    ['.a.', 2],
    ['.0abc', 0],
    ['.a[', 2],
    ['.a[x]', 2],
    ['.a[-1]', 2],
    ["['single']", 0],
    ['["unterminated]', 0],
    ['.a b', 2],
  ])('refuses %j with an invalid_json_path error naming the character', (path, position) => {
    let caught: unknown;
    try {
      parseJsonPath(path);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ModeltapeError);
    expect((caught as ModeltapeError).code).toBe('invalid_json_path');
    expect((caught as Error).message).toContain(`Invalid JSON path ${JSON.stringify(path)} at character ${position}`);
    expect((caught as Error).message).toContain('.messages[0].content');
  });
});

describe('propertyPath and indexPath', () => {
  test('append a plain name with a dot and an odd one quoted', () => {
    expect(propertyPath('', 'messages')).toBe('.messages');
    expect(propertyPath('.request.headers', 'anthropic-version')).toBe('.request.headers["anthropic-version"]');
    expect(propertyPath('', 'odd key')).toBe('["odd key"]');
    expect(propertyPath('', '2fa')).toBe('["2fa"]');
    expect(indexPath('.messages', 2)).toBe('.messages[2]');
  });

  test('build paths that parse back to the same segments', () => {
    const names = ['messages', 'odd key', 'anthropic-version', 'say "hi"', '$ref', '0', 'ü'];
    for (const name of names) {
      expect(parseJsonPath(indexPath(propertyPath('.root', name), 3))).toEqual([{ property: 'root' }, { property: name }, { index: 3 }]);
    }
    expect(names).toHaveLength(7);
  });
});
