import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { closeAfterEach } from '../support/close-after-each.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';

// An obviously fake key in a real key's shape.
const key = fakeOpenAiKey('FAKEq7bK2mX9vL4pR8tW1nY5cF3hJ6dG0sA');
// Eight characters of the secret part: what a leak is.
const secretPart = key.slice(8, 16);

const closing = closeAfterEach();

async function listening(fake: FakeProvider): Promise<string> {
  const server = await fake.listen({ port: 0 });
  closing(server);
  return server.url;
}

describe("the FakeProvider's own error bodies", () => {
  test('a script that ran out names the prompt with the key masked, even where the prompt is cut', async () => {
    const fake = new FakeProvider().willSay('only one answer');
    const url = await listening(fake);
    const ask = (content: string) =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content }] }),
      });
    await (await ask('first')).text();
    // The key straddles the 120th character of the prompt, where the message cuts it.
    const body = await (await ask(`${'x'.repeat(100)} ${key} and more`)).text();
    expect(body).toContain('script ran out');
    expect(body).toContain('[openai-key');
    expect(body).not.toContain(secretPart);
    expect(fake.problems().join('\n')).not.toContain(secretPart);
  });

  test('an unknown URL holding a key is named with the key masked', async () => {
    const url = await listening(new FakeProvider());
    const body = await (await fetch(`${url}/v1/${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).text();
    expect(body).toContain('Invalid URL');
    expect(body).not.toContain(secretPart);
  });
});
