import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { assertRenderedSnapshot } from 'modeltape/replay';
import { tempDir } from '../support/temp-dir.js';

const write = { MODELTAPE_UPDATE: '1' };

describe('assertRenderedSnapshot redaction', () => {
  const dir = tempDir();

  test('a request without a body (a GET) still has its secret headers and query parameters dropped', () => {
    assertRenderedSnapshot(
      {
        method: 'GET',
        url: 'https://generativelanguage.googleapis.com/v1beta/models?key=my-gemini-key',
        headers: { Authorization: 'Bearer short-token', 'x-api-key': 'team-key-1' },
      },
      'list-models',
      { dir, env: write },
    );
    const text = readFileSync(`${dir}/__snapshots__/list-models.request.json`, 'utf8');
    // Today the whole request is taken for a JSON body and written as it is.
    expect(text).not.toContain('short-token');
    expect(text).not.toContain('team-key-1');
    expect(text).not.toContain('my-gemini-key');
  });

  test('a key-shaped string used as a property name is redacted too', () => {
    // Obviously fake, built at runtime: a real key's shape without a real key's bytes in the file.
    const key = ['sk', 'proj', 'FAKEfake0123456789FAKEfake01'].join('-');
    assertRenderedSnapshot({ model: 'gpt-4o', metadata: { [key]: 'owner' } }, 'keyed-by-secret', { dir, env: write });
    const text = readFileSync(`${dir}/__snapshots__/keyed-by-secret.request.json`, 'utf8');
    expect(text).not.toContain(key);
  });

  test('headers given as [name, value] pairs (a HeadersInit) are redacted by name', () => {
    assertRenderedSnapshot(
      { method: 'POST', url: 'https://api.openai.com/v1/chat/completions', headers: [['authorization', 'Bearer short-token']], body: { model: 'gpt-4o' } },
      'pairs',
      { dir, env: write },
    );
    const text = readFileSync(`${dir}/__snapshots__/pairs.request.json`, 'utf8');
    expect(text).not.toContain('short-token');
  });

  test('a Headers instance is accepted (today: DataCloneError from structuredClone)', () => {
    expect(() =>
      assertRenderedSnapshot(
        {
          method: 'POST',
          url: 'https://api.openai.com/v1/chat/completions',
          headers: new Headers({ authorization: 'Bearer short-token', 'content-type': 'application/json' }),
          body: { model: 'gpt-4o' },
        },
        'headers-instance',
        { dir, env: write },
      ),
    ).not.toThrow();
    const text = readFileSync(`${dir}/__snapshots__/headers-instance.request.json`, 'utf8');
    expect(text).toContain('application/json');
    expect(text).not.toContain('short-token');
  });
});
