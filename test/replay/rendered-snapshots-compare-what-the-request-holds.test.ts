import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { assertRenderedSnapshot } from 'modeltape/replay';
import { tempDir } from '../support/temp-dir.js';

describe('assertRenderedSnapshot comparisons', () => {
  const dir = tempDir();

  test('a snapshot checked out with CRLF line endings (git autocrlf on Windows) still matches', () => {
    const request = { method: 'POST', path: '/v1/chat/completions', body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] } };
    assertRenderedSnapshot(request, 'crlf', { dir, env: { MODELTAPE_UPDATE: '1' } });
    const file = `${dir}/__snapshots__/crlf.request.json`;
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
    // Today: fails under CI with "differs from its snapshot" and no difference listed.
    expect(() => assertRenderedSnapshot(request, 'crlf', { dir, env: { CI: 'true' } })).not.toThrow();
  });

  test('a binary body is kept as bytes (e.g. base64), not as an object of numbered bytes', () => {
    const bytes = new Uint8Array([0x1f, 0x8b, 0x08, 0x00]);
    assertRenderedSnapshot(
      { method: 'POST', path: '/v1/audio/transcriptions', headers: { 'content-type': 'application/octet-stream' }, body: bytes },
      'binary',
      { dir, env: { MODELTAPE_UPDATE: '1' } },
    );
    const snapshot = JSON.parse(readFileSync(`${dir}/__snapshots__/binary.request.json`, 'utf8')) as { body: unknown };
    // Today: { "0": 31, "1": 139, "2": 8, "3": 0 }.
    expect(snapshot.body).not.toEqual({ 0: 31, 1: 139, 2: 8, 3: 0 });
  });

  test('a hand-broken snapshot fails with ReplayAssertionError naming the file, not a bare SyntaxError', () => {
    mkdirSync(`${dir}/__snapshots__`, { recursive: true });
    writeFileSync(`${dir}/__snapshots__/broken.request.json`, '{ "body": ');
    expect(() => assertRenderedSnapshot({ a: 1 }, 'broken', { dir, env: {} })).toThrow(/broken\.request\.json/);
  });
});
