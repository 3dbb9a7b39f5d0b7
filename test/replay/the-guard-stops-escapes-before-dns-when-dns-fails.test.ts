import dns from 'node:dns';
import https from 'node:https';
import net from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ProxyAgent, fetch as undiciFetch, request as undiciRequest } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import { EscapeError, openTape } from 'modeltape/replay';
import { offMachineStandIn } from '../support/off-machine-stand-in.js';
import { recordTape } from '../support/record-tape.js';
import { startForwardProxyStandIn } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// The offline CI case: DNS fails for every provider host. A guard that counted an escape only
// once its connection was made (or its headers sent) would count nothing here. This one stops
// each attempt before its lookup: the lookup below fails loudly if it is ever asked. Beneath the
// guard, every connection off loopback goes to a stand-in on 127.0.0.1, which must hear none.
describe('the in-process replay guard when DNS fails first', () => {
  const offMachine = offMachineStandIn();
  const dir = tempDir();
  const lookup = dns.lookup;
  const asked: string[] = [];
  afterEach(() => {
    dns.lookup = lookup;
    asked.length = 0;
  });

  test('stops the official SDKs, fetch, undici, node:https and a raw socket before any lookup, and close() names each with its path and way', async () => {
    const tape = `${dir}/offline.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
      });
    });
    const session = await openTape(tape, { config: false });
    (dns as { lookup: unknown }).lookup = (host: string, ...rest: unknown[]) => {
      asked.push(host);
      const callback = rest[rest.length - 1] as (error: Error) => void;
      process.nextTick(() => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })));
    };
    const code = async (send: () => Promise<unknown>): Promise<string> => {
      try {
        await send();
        return 'answered';
      } catch (error) {
        const caught = error as { code?: string; cause?: { code?: string; cause?: { code?: string } } };
        return caught.cause?.cause?.code ?? caught.cause?.code ?? caught.code ?? String(error);
      }
    };
    const outcomes = {
      openai: await code(() => new OpenAI({ apiKey: 'k', baseURL: 'https://api.openai.com/v1', maxRetries: 0 }).models.list()),
      anthropic: await code(() => new Anthropic({ apiKey: 'k', baseURL: 'https://api.anthropic.com', maxRetries: 0 }).models.list()),
      fetch: await code(() => fetch('https://generativelanguage.googleapis.com/v1beta/models')),
      undici: await code(() => undiciRequest('https://api.openai.com/v1/embeddings', { method: 'POST', body: '{}' })),
      https: await code(() => new Promise((resolve, reject) => https.get('https://api.anthropic.com/v1/messages', resolve).on('error', reject))),
      net: await code(() => new Promise<void>((resolve, reject) => net.connect(443, 'api.openai.com', () => resolve()).on('error', reject))),
    };
    expect(outcomes).toEqual({
      openai: 'MODELTAPE_BLOCKED',
      anthropic: 'MODELTAPE_BLOCKED',
      fetch: 'MODELTAPE_BLOCKED',
      undici: 'MODELTAPE_BLOCKED',
      https: 'MODELTAPE_BLOCKED',
      net: 'MODELTAPE_BLOCKED',
    });
    expect(asked).toEqual([]);

    const error = await session.close().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EscapeError);
    expect((error as EscapeError).escapes.map((escape) => `${escape.via} ${escape.host}${escape.path ?? ''}`)).toEqual([
      'fetch api.openai.com/v1/models',
      'fetch api.anthropic.com/v1/models',
      'fetch generativelanguage.googleapis.com/v1beta/models',
      'undici api.openai.com/v1/embeddings',
      'http api.anthropic.com/v1/messages',
      'net api.openai.com',
    ]);
    expect((error as Error).message).toContain('6 requests to a provider tried to leave the machine');
    expect(await offMachine.heard()).toEqual([]);
  });

  test('lets a host that is no provider through, and lists it in the summary', async () => {
    const tape = `${dir}/outside.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await fetch(`${openai}/models`);
    });
    const session = await openTape(tape, { config: false });
    (dns as { lookup: unknown }).lookup = (host: string, ...rest: unknown[]) => {
      asked.push(host);
      const callback = rest[rest.length - 1] as (error: Error) => void;
      process.nextTick(() => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })));
    };
    await expect(fetch('https://example.com/')).rejects.toThrow('fetch failed');
    expect(asked).toEqual(['example.com']);
    await session.fetch(`${session.baseUrls.openai}/models`);
    const summary = await session.close();
    expect(summary.escapes).toEqual([]);
    expect(summary.outside).toEqual([{ host: 'example.com', port: 443, via: 'fetch', count: 1 }]);
    // Its lookup failed (above): it never connected, even to the stand-in.
    expect(await offMachine.heard()).toEqual([]);
  });

  test("stops a CONNECT through a local forward proxy before the proxy hears the provider's name", async () => {
    const tape = `${dir}/tunnel.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await fetch(`${openai}/models`);
    });
    const forward = await startForwardProxyStandIn();
    const session = await openTape(tape, { config: false });
    const dispatcher = new ProxyAgent(forward.url);
    await expect(undiciFetch('https://api.openai.com/v1/models', { dispatcher })).rejects.toThrow();
    await dispatcher.close();
    await forward.close();
    expect(forward.heard).toEqual([]);
    const error = (await session.close().catch((caught: unknown) => caught)) as EscapeError;
    expect(error).toBeInstanceOf(EscapeError);
    expect(error.escapes.map((escape) => `${escape.via} ${escape.host}`)).toEqual(['undici api.openai.com']);
    expect(await offMachine.heard()).toEqual([]);
  });
});
