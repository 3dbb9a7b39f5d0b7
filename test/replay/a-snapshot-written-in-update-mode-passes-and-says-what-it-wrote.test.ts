import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test, vi } from 'vitest';
import { assertRenderedSnapshot } from 'modeltape/replay';
import { tempDir } from '../support/temp-dir.js';

const ask = (content: string): unknown => ({
  method: 'POST',
  path: '/v1/chat/completions',
  body: { model: 'gpt-4.1-nano', messages: [{ role: 'user', content }] },
});

describe('assertRenderedSnapshot in update mode', () => {
  const dir = tempDir();
  const file = (name: string): string => `${dir}/__snapshots__/${name}.request.json`;

  test('passes when it writes or rewrites a snapshot, and says what it wrote; then passes silently', () => {
    const said: string[] = [];
    const options = { dir, env: { MODELTAPE_UPDATE: '1' }, log: (message: string) => said.push(message) };

    expect(assertRenderedSnapshot(ask('Ship to Paris'), 'checkout', options)).toEqual({ file: file('checkout'), wrote: 'created' });
    expect(said).toEqual([`modeltape: wrote the rendered-request snapshot ${file('checkout')} (new, MODELTAPE_UPDATE=1). Review it and commit it.`]);

    expect(assertRenderedSnapshot(ask('Ship to Lyon'), 'checkout', options)).toEqual({ file: file('checkout'), wrote: 'rewritten' });
    expect(said[1]).toContain(`modeltape: rewrote the rendered-request snapshot ${file('checkout')} (MODELTAPE_UPDATE=1):`);
    expect(said[1]).toContain('at .body.messages[0].content: recorded "Ship to Paris" sent "Ship to Lyon"');
    expect(JSON.parse(readFileSync(file('checkout'), 'utf8'))).toMatchObject({ body: { messages: [{ content: 'Ship to Lyon' }] } });

    expect(assertRenderedSnapshot(ask('Ship to Lyon'), 'checkout', options)).toEqual({ file: file('checkout'), wrote: undefined });
    expect(said).toHaveLength(2);
  });

  test('says so on stderr by default', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      assertRenderedSnapshot(ask('hi'), 'stderr', { dir, env: { MODELTAPE_UPDATE: '1' } });
      expect(stderr.mock.calls.map(([text]) => String(text))).toEqual([
        `modeltape: wrote the rendered-request snapshot ${file('stderr')} (new, MODELTAPE_UPDATE=1). Review it and commit it.\n`,
      ]);
    } finally {
      stderr.mockRestore();
    }
  });

  test('stays strict under CI: it compares, never writes, and fails on a change even with MODELTAPE_UPDATE=1', () => {
    const said: string[] = [];
    assertRenderedSnapshot(ask('Ship to Paris'), 'ci', { dir, env: { MODELTAPE_UPDATE: '1' }, log: () => undefined });
    const ci = { dir, env: { CI: 'true', MODELTAPE_UPDATE: '1' }, log: (message: string) => said.push(message) };
    expect(() => assertRenderedSnapshot(ask('Ship to Lyon'), 'ci', ci)).toThrow(/differs from its snapshot[\s\S]*recorded "Ship to Paris" sent "Ship to Lyon"/);
    expect(JSON.parse(readFileSync(file('ci'), 'utf8'))).toMatchObject({ body: { messages: [{ content: 'Ship to Paris' }] } });
    expect(() => assertRenderedSnapshot(ask('hi'), 'ci-new', ci)).toThrow(/Under CI snapshots are only compared, never written/);
    expect(existsSync(file('ci-new'))).toBe(false);
    expect(said).toEqual([]);
  });
});
