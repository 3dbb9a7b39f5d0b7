import { describe, expect, test } from 'vitest';
import { ModeltapeError } from '../core/internal.js';
import { compileNormalizers, normalizeBody, normalizePath } from './normalize-body.js';
import type { Normalizer } from './tape-format.js';

function normalize(body: unknown, normalizers: Normalizer[]): unknown {
  return normalizeBody(body, compileNormalizers(normalizers));
}

describe('normalizeBody', () => {
  test('replaces the value at a path with the default placeholder', () => {
    expect(normalize({ metadata: { request_id: 'r-1', user: 'u' } }, [{ path: '.metadata.request_id' }])).toEqual({
      metadata: { request_id: '<normalized>', user: 'u' },
    });
  });

  test('replaces a whole subtree, not only a leaf', () => {
    expect(normalize({ a: { b: [1, 2, { c: 3 }] }, d: 1 }, [{ path: '.a', placeholder: 'X' }])).toEqual({ a: 'X', d: 1 });
  });

  test('replaces every array element with [*] and every property with .*', () => {
    expect(
      normalize(
        {
          messages: [
            { id: 1, t: 'a' },
            { id: 2, t: 'b' },
          ],
        },
        [{ path: '.messages[*].id', placeholder: '#' }],
      ),
    ).toEqual({
      messages: [
        { id: '#', t: 'a' },
        { id: '#', t: 'b' },
      ],
    });
    expect(normalize({ tools: { a: { v: 1 }, b: { v: 2 } } }, [{ path: '.tools.*.v', placeholder: '#' }])).toEqual({ tools: { a: { v: '#' }, b: { v: '#' } } });
  });

  test('replaces one element with an index path and leaves the others', () => {
    expect(normalize({ messages: ['a', 'b', 'c'] }, [{ path: '.messages[1]' }])).toEqual({ messages: ['a', '<normalized>', 'c'] });
  });

  test('leaves the body as it is when the path leads nowhere', () => {
    const body = { messages: ['a'], metadata: null };
    expect(normalize(body, [{ path: '.messages[5]' }, { path: '.missing.deeper' }, { path: '.metadata.request_id' }, { path: '.messages.x' }])).toEqual(body);
  });

  test('does not create a property that was not there', () => {
    expect(normalize({}, [{ path: '.metadata' }])).toEqual({});
  });

  test('replaces the whole body for the root path', () => {
    expect(normalize({ a: 1 }, [{ path: '.', placeholder: 'all' }])).toBe('all');
  });

  test('replaces every match of a pattern in every string, at any depth, leaving property names', () => {
    const body = { '2024-01-01': 'at 2024-01-01 and 2025-02-02', nested: [{ text: 'x 2023-03-03 y' }, 42, true, null] };
    expect(normalize(body, [{ pattern: '\\d{4}-\\d{2}-\\d{2}', placeholder: 'DATE' }])).toEqual({
      '2024-01-01': 'at DATE and DATE',
      nested: [{ text: 'x DATE y' }, 42, true, null],
    });
  });

  test('honours pattern flags', () => {
    expect(normalize({ a: 'Run-1 run-2' }, [{ pattern: 'run-\\d', flags: 'i', placeholder: 'R' }])).toEqual({ a: 'R R' });
    expect(normalize({ a: 'Run-1 run-2' }, [{ pattern: 'run-\\d', placeholder: 'R' }])).toEqual({ a: 'Run-1 R' });
  });

  test('gives the same result when called twice with one compiled pattern', () => {
    const compiled = compileNormalizers([{ pattern: 'x', placeholder: '_' }]);
    expect(normalizeBody({ a: 'xx', b: 'x' }, compiled)).toEqual({ a: '__', b: '_' });
    expect(normalizeBody({ a: 'xx', b: 'x' }, compiled)).toEqual({ a: '__', b: '_' });
  });

  test('applies normalizers in order', () => {
    expect(
      normalize({ a: 'id-1' }, [
        { path: '.a', placeholder: 'id-9' },
        { pattern: '\\d', placeholder: 'N' },
      ]),
    ).toEqual({ a: 'id-N' });
    expect(
      normalize({ a: 'id-1' }, [
        { pattern: '\\d', placeholder: 'N' },
        { path: '.a', placeholder: 'id-9' },
      ]),
    ).toEqual({ a: 'id-9' });
  });

  test('never changes its input', () => {
    const body = { messages: [{ content: 'at 2024-01-01', id: 'x' }] };
    const copy = structuredClone(body);
    normalize(body, [{ path: '.messages[*].id' }, { pattern: '\\d' }]);
    expect(body).toEqual(copy);
  });

  test('returns the input itself when there are no normalizers', () => {
    const body = { a: 1 };
    expect(normalizeBody(body, compileNormalizers([]))).toBe(body);
  });
});

describe('compileNormalizers', () => {
  test('parses paths and builds global patterns with the default placeholder', () => {
    const compiled = compileNormalizers([{ path: '.a[0]' }, { pattern: 'x', flags: 'i', placeholder: 'P' }]);
    expect(compiled[0]).toEqual({ kind: 'path', segments: [{ property: 'a' }, { index: 0 }], placeholder: '<normalized>' });
    const second = compiled[1]!;
    expect(second.kind).toBe('pattern');
    if (second.kind === 'pattern') {
      expect(second.pattern.flags).toBe('gi');
      expect(second.placeholder).toBe('P');
    }
  });

  test('refuses an invalid regular expression with its index and cause', () => {
    let caught: unknown;
    try {
      compileNormalizers([{ pattern: 'ok' }, { pattern: '(' }]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ModeltapeError);
    expect((caught as ModeltapeError).code).toBe('invalid_normalizer');
    expect((caught as ModeltapeError).message).toMatch(/^Normalizer 1 has an invalid pattern "\("/);
    expect((caught as ModeltapeError).cause).toBeInstanceOf(SyntaxError);
  });
});

describe('a pattern normalizer in the path', () => {
  const deployment: Normalizer = { pattern: '/deployments/[^/]+/', in: 'path', placeholder: '/deployments/<deployment>/' };

  test('rewrites the path, and leaves the body to the body normalizers', () => {
    const compiled = compileNormalizers([deployment, { pattern: 'gpt-4o-[a-z]+' }]);
    expect(normalizePath('/openai/deployments/gpt-4o-dev/chat/completions', compiled)).toBe('/openai/deployments/<deployment>/chat/completions');
    expect(normalizeBody({ model: 'gpt-4o-dev', note: '/deployments/x/' }, compiled)).toEqual({ model: '<normalized>', note: '/deployments/x/' });
  });

  test('a body normalizer leaves the path as it is, and a path-only list leaves the body itself', () => {
    const body = { model: 'gpt-4o-dev' };
    expect(normalizePath('/openai/deployments/gpt-4o-dev/chat/completions', compileNormalizers([{ pattern: 'gpt-4o-[a-z]+' }]))).toBe(
      '/openai/deployments/gpt-4o-dev/chat/completions',
    );
    expect(normalizeBody(body, compileNormalizers([deployment]))).toBe(body);
  });
});
