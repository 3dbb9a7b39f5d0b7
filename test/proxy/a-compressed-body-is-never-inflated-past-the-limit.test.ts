import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { findSecrets } from 'modeltape/recordings';
import { closeAfterEach } from '../support/close-after-each.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir({ inProject: true });
const started = closeAfterEach();

// 64 MiB of zeros compresses to about 64 KB: a small answer that inflates far past the limit.
const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, '0'));

describe('a compressed body that inflates past the limit', () => {
  for (const encoding of ['gzip', 'gzip, gzip']) {
    test(`a response (${encoding}) reaches the client as sent, is not recorded, and the reason is named`, async () => {
      const body = encoding === 'gzip' ? bomb : gzipSync(bomb);
      const upstream = started(await startStandInUpstream(() => ({ body, headers: { 'content-type': 'application/json', 'content-encoding': encoding } })));
      const proxy = started(
        await startProxy({
          tape: `${dir}/bomb.jsonl`,
          mode: 'record',
          allowRecordInCi: true,
          log: () => undefined,
          upstreams: { openai: upstream.url },
          limits: { responseBodyBytes: 1024 * 1024 },
        }),
      );
      const response = await fetch(`${proxy.baseUrls.openai}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"model":"m"}',
      });
      expect(response.status).toBe(200);
      await response.body?.cancel();
      const summary = await proxy.close();
      expect(summary).toMatchObject({ recorded: 0, refused: 1 });
      expect(summary.problems[0]).toContain('decodes to more than the 1 MiB (1048576 bytes) limit');
      expect(existsSync(`${dir}/bomb.jsonl`)).toBe(false); // nothing recorded, so no tape was made
    });
  }

  test('the secret scan never inflates a gzip payload past 64 MiB (so a key inside one is a named limit), and reads one under it', () => {
    const key = ['sk', 'proj', 'Zq7bK2mX9vL4pR8tW1nY5cF3hJ6dG0sA'].join('-');
    const payload = (padding: number) => ({
      request: { body: { base64: gzipSync(Buffer.concat([Buffer.from(`${key} `), Buffer.alloc(padding, ' ')])).toString('base64') } },
    });
    expect(findSecrets(payload(1024)).map((location) => location.rule)).toEqual(['openai-key']);
    expect(findSecrets(payload(80 * 1024 * 1024))).toEqual([]);
  });

  test('an odd-length binary payload with many zero bytes is scanned, not a crash', () => {
    const bytes = Buffer.alloc(101);
    bytes.write('hello', 0, 'utf16le');
    expect(() => findSecrets({ request: { body: { base64: bytes.toString('base64') } } })).not.toThrow();
  });
});
