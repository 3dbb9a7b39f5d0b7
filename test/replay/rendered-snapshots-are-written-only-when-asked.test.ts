import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { ReplayAssertionError, assertRenderedSnapshot, tapeForCurrentTest } from 'modeltape/replay';
import { fakeGoogleKey, fakeOpenAiKey } from '../support/fake-keys.js';
import { tempDir } from '../support/temp-dir.js';

const request = {
  method: 'POST',
  url: `https://generativelanguage.googleapis.com/v1beta/models/gemini:generateContent?key=${fakeGoogleKey(`${'FAKE'.repeat(8)}123`)}`,
  headers: { authorization: 'Bearer FAKEFAKEFAKEFAKEFAKEFAKE', 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Ship to Paris' }], note: fakeOpenAiKey('FAKE'.repeat(7)) }),
};

describe('assertRenderedSnapshot', () => {
  const dir = tempDir();

  test('fails on a missing snapshot, writes it with MODELTAPE_UPDATE=1, then compares, without credentials', () => {
    const file = `${dir}/__snapshots__/checkout.request.json`;
    expect(() => assertRenderedSnapshot(request, 'checkout', { dir, env: {} })).toThrow(
      /No rendered-request snapshot .*checkout\.request\.json\. Write it by running the test with MODELTAPE_UPDATE=1/,
    );
    expect(existsSync(file)).toBe(false);
    assertRenderedSnapshot(request, 'checkout', { dir, env: { MODELTAPE_UPDATE: '1' } });
    const written = readFileSync(file, 'utf8');
    expect(written).not.toMatch(/FAKEFAKE|authorization/);
    expect(JSON.parse(written)).toMatchObject({
      body: { messages: [{ content: 'Ship to Paris' }], note: '[openai-key 36 chars]' },
      url: expect.stringContaining('key=REDACTED'),
    });
    assertRenderedSnapshot(request, 'checkout', { dir, env: {} });

    const drifted = { ...request, body: request.body.replace('Paris', 'Lyon') };
    expect(() => assertRenderedSnapshot(drifted, 'checkout', { dir, env: {} })).toThrow(
      /at \.body\.messages\[0\]\.content: recorded "Ship to Paris" sent "Ship to Lyon"/,
    );
  });

  test('under CI it only compares: a missing snapshot fails even with MODELTAPE_UPDATE=1, and nothing is written', () => {
    const env = { CI: 'true', MODELTAPE_UPDATE: '1' };
    expect(() => assertRenderedSnapshot({ model: 'gpt-4o' }, 'ci-only', { dir, env })).toThrow(ReplayAssertionError);
    expect(() => assertRenderedSnapshot({ model: 'gpt-4o' }, 'ci-only', { dir, env })).toThrow(/Under CI snapshots are only compared, never written/);
    expect(existsSync(`${dir}/__snapshots__/ci-only.request.json`)).toBe(false);
  });

  test('takes the request first and the name second, and says so when given the name first (the order of earlier versions)', () => {
    expect(() => (assertRenderedSnapshot as (...args: unknown[]) => unknown)('checkout', { messages: [] }, { dir, env: {} })).toThrow(
      "assertRenderedSnapshot(request, name, options?) takes the request first and the snapshot's name second; the name given is an object. Earlier versions took the name first: swap the two arguments.",
    );
    expect(existsSync(`${dir}/__snapshots__/checkout.request.json`)).toBe(false);
  });
});

describe('tapeForCurrentTest', () => {
  test('names a tape after the running test and its file', () => {
    const path = tapeForCurrentTest();
    expect(path).toMatch(
      /test\/replay\/__tapes__\/rendered-snapshots-are-written-only-when-asked\.test\/tapeForCurrentTest--names-a-tape-after-the-running-test-and-its-file-[0-9a-f]{8}\.jsonl$/,
    );
    // Readable, with a short hash of the exact name so that two names never share a file.
    expect(tapeForCurrentTest({ dir: 'tapes', name: 'checkout > pays by card' })).toMatch(/^tapes\/checkout--pays-by-card-[0-9a-f]{8}\.jsonl$/);
    expect(tapeForCurrentTest({ dir: 'tapes', name: 'refund' })).toBe('tapes/refund.jsonl');
  });
});
