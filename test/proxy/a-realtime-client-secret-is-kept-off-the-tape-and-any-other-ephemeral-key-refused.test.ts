import { readFileSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { runMain } from '../support/cli.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// A server mints a Realtime client secret (an ephemeral key, `ek_…`) for a browser to connect
// with. The client gets it as minted; the tape keeps the answer with the secret replaced, and
// replay serves that. An ephemeral key anywhere else refuses the recording, as any key does.

// Shaped as the API's (ek_ and 32 hex digits), each its own, built at run time so no file holds one.
const ephemeralKey = (seed: number) => `e${'k'}_${String(seed).repeat(32).slice(0, 8)}8e408191a1120ab6383263c2`;

const dir = tempDir();
let upstream: StandInUpstream | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await upstream?.close();
  proxy = upstream = undefined;
});

test('recording the answers that mint a Realtime client secret keeps them without the secret, and replay serves them; an ephemeral key anywhere else is refused', async () => {
  const minted = ephemeralKey(1);
  const beta = ephemeralKey(2);
  const inText = ephemeralKey(3);
  upstream = await startStandInUpstream((request) => {
    const json = { 'content-type': 'application/json' };
    if (request.url.endsWith('/client_secrets'))
      return { headers: json, body: JSON.stringify({ value: minted, expires_at: 1756310470, session: { type: 'realtime', model: 'gpt-realtime' } }) };
    if (request.url.endsWith('/realtime/sessions'))
      return { headers: json, body: JSON.stringify({ id: 'sess_1', object: 'realtime.session', client_secret: { value: beta, expires_at: 1756310470 } }) };
    return { headers: json, body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: `Connect with ${inText}` }, finish_reason: 'stop' }] }) };
  });
  const tape = `${dir}/mint.jsonl`;
  const logged: string[] = [];
  proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: (line) => logged.push(line) });
  const post = async (base: string, path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fakeOpenAiKey()}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as Record<string, any>;
  };
  const ask = (base: string) =>
    Promise.all([
      post(base, '/realtime/client_secrets', { session: { type: 'realtime', model: 'gpt-realtime' } }),
      post(base, '/realtime/sessions', { model: 'gpt-realtime' }),
      post(base, '/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'How do I connect?' }] }),
    ]);

  // The client gets every answer as the upstream sent it: the secret works for the live session.
  const live = await ask(proxy.baseUrls.openai);
  expect(live[0]!.value).toBe(minted);
  expect(live[1]!.client_secret.value).toBe(beta);
  expect(live[2]!.choices[0].message.content).toBe(`Connect with ${inText}`);
  const summary = await proxy.close();
  proxy = undefined;
  // The two mints are kept; the answer with a key in its text is refused, named by its rule.
  expect(summary).toMatchObject({ recorded: 2, refused: 1 });
  expect(logged.join('\n')).toContain('[ephemeral-key 35 chars]');

  const text = readFileSync(tape, 'utf8');
  for (const key of [minted, beta, inText]) {
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(3, 11));
    expect(logged.join('\n')).not.toContain(key.slice(3, 11));
  }
  expect(text.match(/"REDACTED"/g)).toHaveLength(2);
  // The tape is whole: its bodies give the bytes their fingerprints name.
  const verified = await runMain(['verify', tape]);
  expect(verified.stdout + verified.stderr).not.toContain('problem');
  expect(verified.code).toBe(0);

  // Replay, the upstream gone: the mints are answered with the secret as the tape keeps it.
  await upstream.close();
  upstream = undefined;
  proxy = await startProxy({ tape, mode: 'replay', log: () => undefined });
  const replayed = await Promise.all([
    post(proxy.baseUrls.openai, '/realtime/client_secrets', { session: { type: 'realtime', model: 'gpt-realtime' } }),
    post(proxy.baseUrls.openai, '/realtime/sessions', { model: 'gpt-realtime' }),
  ]);
  expect(replayed[0]).toEqual({ value: 'REDACTED', expires_at: 1756310470, session: { type: 'realtime', model: 'gpt-realtime' } });
  expect(replayed[1]!.client_secret).toEqual({ value: 'REDACTED', expires_at: 1756310470 });
  expect(await proxy.close()).toMatchObject({ hits: 2, misses: 0 });
  proxy = undefined;
});
