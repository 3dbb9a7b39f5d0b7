import { request as httpRequest } from 'node:http';
import { describe, expect, test } from 'vitest';
import { request as undiciRequest } from 'undici';
import { EscapeError, openTape } from 'modeltape/replay';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

describe('the replay guard', () => {
  const dir = tempDir();

  test('stops a request to an upstream made around the session (global fetch, node:http, undici.request) before any HTTP is sent, and fails close()', async () => {
    const tape = `${dir}/guarded.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await fetch(`${openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"gpt-4o","messages":[]}' });
    });
    // The "provider" is a live local server the replay must never reach.
    const provider = await startStandInUpstream();
    const session = await openTape(tape, { config: false, upstreams: { openai: provider.url } });
    const target = `${provider.url}/v1/chat/completions`;

    await expect(fetch(target, { method: 'POST', body: '{}' })).rejects.toThrow(/fetch failed/);
    const viaHttp = await new Promise<Error>((resolve) => {
      const outgoing = httpRequest(target, { method: 'POST' }, () => resolve(new Error('answered')));
      outgoing.on('error', resolve);
      outgoing.end('{}');
    });
    expect(viaHttp.message).toContain('modeltape blocked a connection to 127.0.0.1');
    await expect(undiciRequest(target, { method: 'POST', body: '{}' })).rejects.toThrow(
      /modeltape blocked a connection to 127\.0\.0\.1:\d+\/v1\/chat\/completions \(undici\)/,
    );

    // The session itself still works, on its own port.
    const replayed = await session.fetch(`${session.baseUrls.openai}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"gpt-4o","messages":[]}',
    });
    expect(replayed.status).toBe(200);

    const error = await session.close().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EscapeError);
    expect((error as EscapeError).escapes.map((escape) => [escape.via, escape.path])).toEqual([
      ['fetch', '/v1/chat/completions'],
      ['http', '/v1/chat/completions'],
      ['undici', '/v1/chat/completions'],
    ]);
    expect((error as Error).message).toContain("Give the client the session's fetch");
    // No HTTP request reached the provider.
    expect(provider.received).toHaveLength(0);
    await provider.close();
  });

  test('is off outside replay, and with guard: false', async () => {
    const tape = `${dir}/unguarded.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await fetch(`${openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"gpt-4o","messages":[]}' });
    });
    const provider = await startStandInUpstream();
    const session = await openTape(tape, { config: false, guard: false, upstreams: { openai: provider.url } });
    const direct = await fetch(`${provider.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"gpt-4o","messages":[]}',
    });
    expect(direct.status).toBe(200);
    expect((await session.close()).escapes).toEqual([]);
    await provider.close();
  });
});
