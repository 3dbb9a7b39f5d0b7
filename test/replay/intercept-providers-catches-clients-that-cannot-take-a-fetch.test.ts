import https from 'node:https';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { interceptProviders, openTape } from 'modeltape/replay';
import { offMachineStandIn } from '../support/off-machine-stand-in.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

describe('interceptProviders', () => {
  // The clients below name api.openai.com: what neither the interception nor the guard stopped
  // would reach this loopback stand-in, never the provider.
  const offMachine = offMachineStandIn();
  const dir = tempDir();

  test('answers requests to provider hosts made through the global fetch and node:https from the session, and leaves the rest alone', async () => {
    const tape = `${dir}/intercepted.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      const client = new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 });
      await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'from fetch' }] });
      await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'from https' }] });
    });
    const session = await openTape(tape, { config: false });
    const interception = await interceptProviders(session);
    try {
      // A client built with no fetch option and its default base URL (https://api.openai.com/v1).
      const client = new OpenAI({ apiKey: 'k', maxRetries: 0 });
      const viaFetch = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'from fetch' }] });
      expect(viaFetch.choices[0]!.message.content).toContain('Galaxy Day');

      const viaHttps = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        // Looked up at call time, as clients do: https.request is the intercepted one now.
        const outgoing = https.request(
          'https://api.openai.com/v1/chat/completions',
          { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' } },
          (response) => {
            let body = '';
            response.on('data', (chunk) => (body += chunk));
            response.on('end', () => resolve({ status: response.statusCode!, body }));
          },
        );
        outgoing.on('error', reject);
        outgoing.end(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'from https' }] }));
      });
      expect(viaHttps.status).toBe(200);
      expect(JSON.parse(viaHttps.body).choices[0].message.content).toContain('Galaxy Day');
      expect(interception.intercepted.map((request) => request.url)).toEqual([
        'https://api.openai.com/v1/chat/completions',
        'https://api.openai.com/v1/chat/completions',
      ]);
    } finally {
      await interception.close();
    }
    expect(await session.close()).toMatchObject({ hits: 2, misses: 0, upstreamConnections: 0, escapes: [] });
    expect(await offMachine.heard()).toEqual([]);
  });

  test('a request through an http.request captured before the interception is not intercepted, and the guard stops it as an escape', async () => {
    const tape = `${dir}/captured.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'x' }],
      });
    });
    const capturedRequest = https.request;
    const session = await openTape(tape, { config: false });
    const interception = await interceptProviders(session);
    try {
      const error = await new Promise<Error>((resolve) => {
        const outgoing = capturedRequest('https://api.openai.com/v1/models', () => resolve(new Error('answered')));
        outgoing.on('error', resolve);
        outgoing.end();
      });
      expect(error.message).toContain('modeltape blocked a connection to api.openai.com');
      expect(interception.intercepted).toEqual([]);
    } finally {
      await interception.close();
    }
    await expect(session.close()).rejects.toThrow(/1 request to a provider tried to leave the machine/);
    expect(await offMachine.heard()).toEqual([]);
  });
});
