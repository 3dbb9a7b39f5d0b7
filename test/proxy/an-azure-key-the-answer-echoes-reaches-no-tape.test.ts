import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// An Azure key is 32 hex digits: no shape tells it from a hash without its `api-key` context.
// Sent in the `api-key` query parameter or a credential header (which the tape drops), then echoed
// bare in the answer (a gateway's error quoting the key it refused), it must reach no tape.
const dir = tempDir();
const KEY = createHash('sha256').update('fake azure key').digest('hex').slice(0, 32);

test.each([
  ['the api-key query parameter', `?api-version=2024-10-21&api-key=${KEY}`, {}],
  ['the api-key header', '?api-version=2024-10-21', { 'api-key': KEY }],
  // Azure API Management's key, in front of an Azure OpenAI resource.
  ['the ocp-apim-subscription-key header', '?api-version=2024-10-21', { 'ocp-apim-subscription-key': KEY }],
])('a key sent in %s and echoed bare in the answer is refused, not recorded', async (where, query, headers) => {
  const standIn = await startStandInUpstream(() => ({
    status: 401,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ error: { code: '401', message: `Key ${KEY} is not valid for this resource.` } }),
  }));
  const tape = `${dir}/azure-${query.length}.jsonl`;
  const logged: string[] = [];
  const proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { azure: standIn.url }, log: (line) => logged.push(line) });
  try {
    const response = await fetch(`${proxy.url}/azure/openai/deployments/fake-deployment/chat/completions${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.arrayBuffer();
    expect(standIn.received).toHaveLength(1);
  } finally {
    const summary = await proxy.close();
    await standIn.close();
    expect(summary).toMatchObject({ recorded: 0, refused: 1 });
  }
  expect(logged.join('\n')).toContain(`[part of ${where} the request carried, 32 chars]`);
  const written = existsSync(tape) ? readFileSync(tape, 'utf8') : '';
  expect(written).not.toContain(KEY.slice(4, 20));
  expect(logged.join('\n')).not.toContain(KEY.slice(4, 20));
});
