import { describe, expect, test } from 'vitest';
import { SecretInTapeError } from './errors.js';
import { SECRET_PATTERNS, findSecrets, mayHoldSecret } from './secret-scan.js';
import type { Exchange } from './tape-format.js';

// Obviously fake keys, shaped like real ones so the scanner is really exercised.
const FAKE = {
  openai: 'sk-proj-FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000',
  anthropic: 'sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKE0000',
  bearer: 'Bearer FAKEFAKEFAKEFAKEFAKE0000',
  google: 'AIzaFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE000',
  aws: 'AKIAFAKEFAKEFAKE0000',
};

function exchange(): Exchange {
  return {
    key: '0'.repeat(64),
    ordinal: 0,
    upstream: 'openai',
    source: 'live',
    request: { method: 'POST', path: '/v1/chat/completions', query: [['alt', 'sse']], headers: { 'content-type': 'application/json' }, bodySha256: '1'.repeat(64), body: { json: { messages: [{ role: 'user', content: 'hello' }] } } },
    response: { status: 200, headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_1' }, stream: { format: 'sse', frames: [{ atMs: 0, text: 'data: {"x":1}\n\n' }, { atMs: 3, text: 'data: [DONE]\n\n' }] } },
  };
}

describe('findSecrets', () => {
  test.each([
    ['openai-key', FAKE.openai],
    ['anthropic-key', FAKE.anthropic],
    ['bearer-token', FAKE.bearer],
    ['google-key', FAKE.google],
    ['aws-access-key', FAKE.aws],
  ])('reports a key matching the %s rule by that name', (rule, secret) => {
    expect(findSecrets({ text: `my key is ${secret}, keep it` })).toEqual([{ path: '.text', rule, masked: expect.any(String) as string }]);
  });

  test('covers every rule it declares', () => {
    expect([...new Set(SECRET_PATTERNS.map(({ rule }) => rule))].sort()).toEqual([
      'anthropic-key', 'aws-access-key', 'aws-secret-key', 'azure-openai-key', 'basic-auth', 'bearer-token', 'github-token', 'google-key', 'groq-key',
      'huggingface-token', 'jwt', 'openai-key', 'private-key', 'slack-token', 'stripe-key', 'url-credentials', 'xai-key',
    ]);
  });

  test('finds a key in every place of an exchange, each by its JSON path', () => {
    const tainted = exchange();
    (tainted.request.body as { json: { messages: Array<{ content: string }> } }).json.messages[0]!.content = `use ${FAKE.openai}`;
    (tainted.request.body as { json: Record<string, unknown> }).json[FAKE.anthropic] = true;
    tainted.request.query.push(['after', FAKE.google]);
    tainted.response.headers['x-debug'] = FAKE.bearer;
    tainted.response.stream!.frames[1] = { atMs: 3, text: `data: {"content":"${FAKE.openai}"}\n\n` };
    const found = findSecrets(tainted);
    expect(found.map(({ path, rule }) => [path, rule])).toEqual([
      ['.request.query[1][1]', 'google-key'],
      ['.request.body.json.messages[0].content', 'openai-key'],
      [`.request.body.json["[anthropic-key ${FAKE.anthropic.length} chars]"] (the property name)`, 'anthropic-key'],
      ['.response.headers["x-debug"]', 'bearer-token'],
      ['.response.stream.frames[1].text', 'openai-key'],
    ]);
  });

  test('finds a key in a plain response body', () => {
    const tainted = exchange();
    delete tainted.response.stream;
    tainted.response.body = { json: { choices: [{ message: { content: `Here: ${FAKE.google}` } }] } };
    expect(findSecrets(tainted).map(({ path }) => path)).toEqual(['.response.body.json.choices[0].message.content']);
  });

  test('starts paths at the given root', () => {
    expect(findSecrets({ a: [FAKE.openai] }, '.request.body.json')).toEqual([{ path: '.request.body.json.a[0]', rule: 'openai-key', masked: expect.any(String) as string }]);
  });

  test('finds a key right after a newline or a tab', () => {
    expect(findSecrets({ a: `keys:\n${FAKE.openai}`, b: `\t${FAKE.bearer}` }).map(({ path }) => path)).toEqual(['.a', '.b']);
  });

  test.each([
    'task-list',
    'sk-short',
    'sk-',
    'Bearer token',
    'Bearer short-token',
    'risk-assessment-for-the-whole-project-plan',
    'desk-reservation-system-for-the-office',
    'AIza-too-short',
    'the model said: ask-me-anything-about-anything-at-all',
  ])('does not flag ordinary text %j', (text) => {
    expect(findSecrets({ text })).toEqual([]);
  });

  test('masks every finding so the tail of the key never shows', () => {
    const secrets = Object.values(FAKE);
    const found = findSecrets(secrets);
    expect(found).toHaveLength(secrets.length);
    for (const [index, location] of found.entries()) {
      const secret = secrets[index]!;
      expect(location.masked).toBe(`[${location.rule} ${location.rule === 'bearer-token' ? secret.length : secret.length} chars]`);
      expect(location.masked).not.toContain(secret.slice(0, 4));
      expect(location.masked).not.toContain('0000');
    }
  });

  test('never shows the tail of a key used as a property name, in the path or the mask', () => {
    const found = findSecrets({ [FAKE.openai]: { nested: 'value' } }, '.request.body.json');
    expect(found).toHaveLength(1);
    const error = new SecretInTapeError('POST /v1/chat/completions (openai) to t.jsonl', found);
    expect(error.message).not.toContain(FAKE.openai.slice(-12));
    expect(JSON.stringify(found)).not.toContain(FAKE.openai.slice(-12));
  });
});

describe('mayHoldSecret', () => {
  test('is true for text holding any key shape', () => {
    for (const secret of Object.values(FAKE)) expect(mayHoldSecret(`x ${secret} y`)).toBe(true);
  });

  test('is a pre-filter that never says false where findSecrets finds a secret', () => {
    const texts = ['SKU SK-1234567890ABCDEFGHIJKL', 'aiza' + 'x'.repeat(35), 'Order akia1234567890abcdef now', `bearer ${'x'.repeat(24)}1234`, FAKE.openai, `line\n${FAKE.openai}`, 'plain'];
    const found = texts.filter((text) => findSecrets(text).length > 0);
    expect(found.length).toBeGreaterThanOrEqual(3);
    for (const text of found) expect(mayHoldSecret(text), text).toBe(true);
    expect(mayHoldSecret('plain')).toBe(false);
  });

  test('sees a key in a serialized line even right after an escape such as \\n', () => {
    expect(mayHoldSecret(JSON.stringify({ content: `keys:\n${FAKE.openai}` }))).toBe(true);
  });
});
