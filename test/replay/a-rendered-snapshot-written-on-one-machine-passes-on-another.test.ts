import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { assertRenderedSnapshot } from 'modeltape/replay';
import { sample } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

interface Rendered {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

// The requests the official clients render, caught by the fetch they are given (nothing leaves
// the process), with every header they send.
async function renderedRequests(defaultHeaders: Record<string, string> = {}): Promise<Record<'openai' | 'anthropic' | 'vercel', Rendered>> {
  const seen: Rendered[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    seen.push({ method: request.method, url: request.url, headers, body: await request.text() });
    return new Response(sample(request.url.endsWith('/messages') ? 'anthropic/message.json' : 'openai/chat-completion.json'), {
      headers: { 'content-type': 'application/json' },
    });
  };
  const messages = [{ role: 'user' as const, content: 'Ship to Paris' }];
  await new OpenAI({ apiKey: 'fake-key', fetch, maxRetries: 0, defaultHeaders }).chat.completions.create({ model: 'gpt-4.1-nano', messages });
  await new Anthropic({ apiKey: 'fake-key', fetch, maxRetries: 0, defaultHeaders }).messages.create({ model: 'claude-opus-4-8', max_tokens: 10, messages });
  await generateText({ model: createOpenAI({ apiKey: 'fake-key', fetch, headers: defaultHeaders }).chat('gpt-4.1-nano'), prompt: 'Ship to Paris' });
  expect(seen).toHaveLength(3);
  return { openai: seen[0]!, anthropic: seen[1]!, vercel: seen[2]! };
}

// The same requests as another machine renders them: another OS, CPU, Node and SDK build.
function onAnotherMachine(request: Rendered): Rendered {
  const headers = { ...request.headers };
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'x-stainless-os') headers[name] = value === 'MacOS' ? 'Linux' : 'MacOS';
    if (name === 'x-stainless-arch') headers[name] = value === 'arm64' ? 'x64' : 'arm64';
    if (name === 'x-stainless-runtime-version') headers[name] = 'v22.11.0';
    if (name === 'x-stainless-package-version') headers[name] = `${value}-next`;
    if (name === 'user-agent') headers[name] = value.replace(/node\.js\/v?[\d.]+/, 'node.js/v21.11.0').replace(/JS [\d.]+/, 'JS 9.9.9');
  }
  return { ...request, headers };
}

describe('assertRenderedSnapshot across machines', () => {
  const dir = tempDir();

  test('a snapshot written with one OS and runtime passes under CI with another: per-machine headers never enter it', async () => {
    const here = await renderedRequests();
    expect(here.openai.headers['x-stainless-runtime-version']).toBe(process.version);
    // Vercel ai names the runtime's version (in full on Node 20, the major alone on 22 and later).
    expect(here.vercel.headers['user-agent']).toMatch(
      new RegExp(`runtime/node\\.js/(${process.version.replace(/\./g, '\\.')}|${process.versions.node.split('.')[0]})\\b`),
    );
    const entries = Object.entries(here);
    for (const [name, request] of entries) assertRenderedSnapshot(request, name, { dir, env: { MODELTAPE_UPDATE: '1' }, log: () => undefined });
    for (const [name, request] of entries) {
      const there = onAnotherMachine(request);
      expect(there.headers).not.toEqual(request.headers);
      expect(assertRenderedSnapshot(there, name, { dir, env: { CI: 'true' } })).toEqual({
        file: `${dir}/__snapshots__/${name}.request.json`,
        wrote: undefined,
      });
    }
    expect(entries).toHaveLength(3);

    const openai = JSON.parse(readFileSync(`${dir}/__snapshots__/openai.request.json`, 'utf8')) as { headers: Record<string, string> };
    expect(openai.headers).toEqual({ accept: 'application/json', 'content-type': 'application/json' });
    const anthropic = JSON.parse(readFileSync(`${dir}/__snapshots__/anthropic.request.json`, 'utf8')) as { headers: Record<string, string> };
    expect(Object.keys(anthropic.headers).sort()).toEqual(['accept', 'anthropic-version', 'content-type']);
    const vercel = JSON.parse(readFileSync(`${dir}/__snapshots__/vercel.request.json`, 'utf8')) as { headers: Record<string, string> };
    expect(vercel.headers).toEqual({ 'content-type': 'application/json' });
  });

  test('a header the code under test sets stays in the snapshot, so changing it still fails', async () => {
    const { openai } = await renderedRequests({ 'x-tenant': 'acme' });
    assertRenderedSnapshot(openai, 'tenant', { dir, env: { MODELTAPE_UPDATE: '1' }, log: () => undefined });
    const { openai: changed } = await renderedRequests({ 'x-tenant': 'globex' });
    expect(() => assertRenderedSnapshot(onAnotherMachine(changed), 'tenant', { dir, env: { CI: 'true' } })).toThrow(
      /at \.headers\["x-tenant"\]: recorded "acme" sent "globex"/,
    );
  });

  test('a snapshot an older modeltape wrote with per-machine headers still matches', async () => {
    const { openai } = await renderedRequests();
    const headers: Record<string, string> = { ...openai.headers, 'x-stainless-os': 'MacOS', 'x-stainless-arch': 'arm64' };
    delete headers.authorization;
    const older = { method: 'POST', url: openai.url, headers, body: JSON.parse(openai.body) as unknown };
    mkdirSync(`${dir}/__snapshots__`, { recursive: true });
    writeFileSync(`${dir}/__snapshots__/older.request.json`, `${JSON.stringify(older, null, 2)}\n`);
    expect(() => assertRenderedSnapshot(openai, 'older', { dir, env: { CI: 'true' } })).not.toThrow();
  });
});
