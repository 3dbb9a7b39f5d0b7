import { describe, expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

describe('session.fetch and two upstreams on one origin', () => {
  const dir = tempDir();

  test('a gateway with one base path per provider (e.g. Cloudflare AI Gateway …/openai and …/anthropic) sends each request to its own upstream', async () => {
    const gateway = await startStandInUpstream(() => ({ body: '{"ok":true}' }));
    const session = await openTape(`${dir}/gateway.jsonl`, {
      mode: 'record',
      allowRecordInCi: true,
      config: false,
      upstreams: { 'gw-openai': `${gateway.url}/v1/acct/gw/openai`, 'gw-anthropic': `${gateway.url}/v1/acct/gw/anthropic` },
    });
    await session.fetch(`${gateway.url}/v1/acct/gw/openai/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"gpt-4o","messages":[]}',
    });
    const summary = await session.close();
    await gateway.close();
    expect(summary.recorded).toBe(1);
    // Today: byOrigin keeps only the last upstream of the origin, so the request goes out as
    // gw-anthropic: /v1/acct/gw/anthropic/v1/acct/gw/openai/chat/completions.
    expect(gateway.received.map((received) => received.url)).toEqual(['/v1/acct/gw/openai/chat/completions']);
  });
});
