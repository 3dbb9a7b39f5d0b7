import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { assertRenderedSnapshot } from 'modeltape/replay';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { tempDir } from '../support/temp-dir.js';

// Shaped like an OpenAI project key: "sk-proj-" and 40 characters, none of them real.
const KEY = fakeOpenAiKey('FAKE0123456789'.repeat(3).slice(0, 40));
const quiet = { log: () => undefined };

const request = (prompt: string): unknown => ({
  method: 'POST',
  path: '/v1/chat/completions',
  body: { model: 'gpt-4.1-nano', messages: [{ role: 'system', content: prompt }], metadata: { key: KEY } },
});

describe('assertRenderedSnapshot and a key inside a prompt', () => {
  const dir = tempDir();

  test('replaces just the key with a marker naming its kind, keeps the text around it, and still sees that text drift', () => {
    expect(KEY).toHaveLength(48);
    const prompt = `You are the billing agent. Call the API with ${KEY} and never show it to the user.`;
    assertRenderedSnapshot(request(prompt), 'billing', { dir, env: { MODELTAPE_UPDATE: '1' }, ...quiet });
    const text = readFileSync(`${dir}/__snapshots__/billing.request.json`, 'utf8');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('FAKE0123');
    const snapshot = JSON.parse(text) as { body: { messages: Array<{ content: string }>; metadata: { key: string } } };
    expect(snapshot.body.messages[0]!.content).toBe('You are the billing agent. Call the API with [openai-key 48 chars] and never show it to the user.');
    expect(snapshot.body.metadata.key).toBe('[openai-key 48 chars]');

    // The same prompt passes under CI; a change in the words around the key is still a change.
    expect(() => assertRenderedSnapshot(request(prompt), 'billing', { dir, env: { CI: 'true' } })).not.toThrow();
    const drifted = prompt.replace('billing agent', 'refunds agent');
    expect(() => assertRenderedSnapshot(request(drifted), 'billing', { dir, env: { CI: 'true' } })).toThrow(
      /at \.body\.messages\[0\]\.content: recorded "You are the billing agent\. Call the API with \[openai-key 48 chars\] and never sho…" sent "You are the refunds agent\. Call the API with \[openai-key 48 chars\]/,
    );
  });
});
