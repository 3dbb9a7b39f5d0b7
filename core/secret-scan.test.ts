import { describe, expect, test } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  ANCHOR_PAIRS,
  PLAIN_ANCHOR,
  SECRET_PATTERNS,
  base64HidesAnchor,
  excerpt,
  findSecrets,
  maskSecrets,
  maskValue,
  mayHoldSecret,
  secretSpans,
} from './secret-scan.js';
import { SecretInTapeError, type Exchange } from '../recordings/internal.js';

// Obviously fake keys, shaped like real ones so the scanner is really exercised.
const FAKE = {
  openai: 'sk-proj-FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000',
  anthropic: 'sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKE0000',
  bearer: 'Bearer FAKEFAKEFAKEFAKEFAKE0000',
  google: 'AIzaFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE000',
  googleOauth: 'ya29.a0FAKEFAKEFAKEFAKEFAKE_FAKE-0000',
  aws: 'AKIAFAKEFAKEFAKE0000',
  bedrock: `AB${'SK'}${Buffer.from('BedrockAPIKey-fake-at-000000000000:FAKEfakeFAKEfake0000').toString('base64')}`,
};

function exchange(): Exchange {
  return {
    key: '0'.repeat(64),
    ordinal: 0,
    upstream: 'openai',
    source: 'live',
    request: {
      method: 'POST',
      path: '/v1/chat/completions',
      query: [['alt', 'sse']],
      headers: { 'content-type': 'application/json' },
      bodySha256: '1'.repeat(64),
      body: { json: { messages: [{ role: 'user', content: 'hello' }] } },
    },
    response: {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_1' },
      stream: {
        format: 'sse',
        frames: [
          { atMs: 0, text: 'data: {"x":1}\n\n' },
          { atMs: 3, text: 'data: [DONE]\n\n' },
        ],
      },
    },
  };
}

describe('findSecrets', () => {
  test.each([
    ['openai-key', FAKE.openai],
    ['anthropic-key', FAKE.anthropic],
    ['bearer-token', FAKE.bearer],
    ['google-key', FAKE.google],
    ['google-oauth-token', FAKE.googleOauth],
    ['google-oauth-token', 'ya29.c.c0FAKEFAKEFAKEFAKEFAKE.FAKE0000'],
    ['aws-access-key', FAKE.aws],
    ['bedrock-api-key', FAKE.bedrock],
  ])('reports a key matching the %s rule by that name', (rule, secret) => {
    expect(findSecrets({ text: `my key is ${secret}, keep it` })).toEqual([{ path: '.text', rule, masked: expect.any(String) as string }]);
  });

  test('covers every rule it declares', () => {
    expect([...new Set(SECRET_PATTERNS.map(({ rule }) => rule))].sort()).toEqual([
      'anthropic-key',
      'aws-access-key',
      'aws-secret-key',
      'azure-openai-key',
      'basic-auth',
      'bearer-token',
      'bedrock-api-key',
      'ephemeral-key',
      'github-token',
      'google-key',
      'google-oauth-token',
      'groq-key',
      'huggingface-token',
      'jwt',
      'openai-key',
      'private-key',
      'slack-token',
      'stripe-key',
      'url-credentials',
      'xai-key',
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
    expect(findSecrets({ a: [FAKE.openai] }, '.request.body.json')).toEqual([
      { path: '.request.body.json.a[0]', rule: 'openai-key', masked: expect.any(String) as string },
    ]);
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
    const texts = [
      'SKU SK-1234567890ABCDEFGHIJKL',
      'aiza' + 'x'.repeat(35),
      'Order akia1234567890abcdef now',
      `bearer ${'x'.repeat(24)}1234`,
      FAKE.openai,
      `line\n${FAKE.openai}`,
      'plain',
    ];
    const found = texts.filter((text) => findSecrets(text).length > 0);
    expect(found.length).toBeGreaterThanOrEqual(3);
    for (const text of found) expect(mayHoldSecret(text), text).toBe(true);
    expect(mayHoldSecret('plain')).toBe(false);
  });

  test('sees a key in a serialized line even right after an escape such as \\n', () => {
    expect(mayHoldSecret(JSON.stringify({ content: `keys:\n${FAKE.openai}` }))).toBe(true);
  });
});

describe('base64HidesAnchor, the pre-filter of a base64 run in a tape line', () => {
  // What it answers, written plainly: each of the four readings decoded by Buffer.from.
  const reference = (run: string): boolean => {
    const clean = run.includes('\\') || run.includes('\n') || run.includes('\r') ? run.replace(/\\[rn]|\\u000[adAD]|[\r\n]/g, '') : run;
    const readings = [Buffer.from(clean, 'base64').toString('latin1')];
    for (let offset = 1; offset < 4 && offset < clean.length; offset++) readings.push(Buffer.from(clean.slice(offset), 'base64').toString('latin1'));
    return readings.some((decoded) => {
      if (PLAIN_ANCHOR.test(decoded) || decoded.includes('\u0000')) return true;
      const length = Math.min(decoded.length, 128);
      let printable = 0;
      for (let index = 0; index < length; index++) {
        const code = decoded.charCodeAt(index);
        if ((code >= 0x20 && code < 0x7f) || code === 9 || code === 10 || code === 13) printable++;
      }
      return printable >= length * 0.9 && mayHoldSecret(decoded);
    });
  };

  test('reads from PLAIN_ANCHOR the first two characters of every spelling it matches', () => {
    const pairs: string[] = [];
    ANCHOR_PAIRS.forEach((marked, code) => {
      if (marked === 1) pairs.push(String.fromCharCode(code >> 8, code & 0xff));
    });
    const spellings = [
      'sk-',
      'sk_',
      'rk_',
      'ghp_',
      'github_pat_',
      'xox',
      'hf_',
      'gsk_',
      'xai-',
      'ek_',
      'AIza',
      'ya29',
      'ABSK',
      'AKIA',
      'ASIA',
      'eyJ',
      'PRIVATE KEY',
      'Bearer',
      'bearer',
      'BEARER',
      'Basic',
      '//',
      'aws',
      'AWS',
      'Aws',
      'apikey',
      'API_KEY',
      'Api-Key',
      'subscription-key',
      'Subscription-Key',
      'Azure',
      'azure',
      'AZURE',
    ];
    for (const spelling of spellings) expect(PLAIN_ANCHOR.test(spelling), spelling).toBe(true);
    expect(pairs.sort()).toEqual([...new Set(spellings.map((spelling) => spelling.slice(0, 2)))].sort());
  });

  test('a tape line finds a key hidden in a base64 name each time the name comes back, and a clean name stays clean', () => {
    const hidden = Buffer.from(FAKE.openai).toString('base64');
    const withKey = { choices: [{ [hidden]: 1 }] };
    const clean = { completion_tokens_details: { accepted_prediction_tokens: 0 } };
    for (let round = 0; round < 3; round++) {
      expect(findSecrets(withKey, '', JSON.stringify(withKey)).length, `round ${round}`).toBeGreaterThan(0);
      expect(findSecrets(clean, '', JSON.stringify(clean)), `round ${round}`).toEqual([]);
    }
  });

  test('answers as the four readings decoded by Buffer.from do, for runs that hide keys and runs that do not', () => {
    let seed = 11;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const bytes = (length: number): Buffer => Buffer.from(Array.from({ length }, () => Math.floor(random() * 256)));
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-';
    const word = (length: number): string => Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join('');
    const hex = (length: number): string => Array.from({ length }, () => '0123456789abcdef'[Math.floor(random() * 16)]).join('');
    const hidden = [FAKE.openai, FAKE.bearer, 'aws secret', 'x%2Dy', '\\u0073k', 'k\u0000e\u0000y', FAKE.google, 'c2stcHJvag', 'https://x.test'];
    const runs: string[] = [];
    for (let index = 0; index < 3000; index++) {
      const kind = index % 6;
      let run =
        kind === 0
          ? hex(64)
          : kind === 1
            ? word(24 + Math.floor(random() * 40))
            : kind === 2
              ? bytes(18 + Math.floor(random() * 60)).toString('base64')
              : kind === 3
                ? Buffer.from(`${word(Math.floor(random() * 5))} ${hidden[index % hidden.length]} ${word(3)}`, 'latin1').toString('base64')
                : kind === 4
                  ? Buffer.from(hidden[index % hidden.length]!, 'utf16le').toString('base64url')
                  : bytes(3000 + Math.floor(random() * 3000)).toString('base64');
      // Glued to other base64 characters (another alignment), and wrapped as MIME and JSON do.
      if (random() < 0.3) run = word(1 + Math.floor(random() * 3)) + run;
      if (random() < 0.2) run = run.replace(/(.{76})/g, random() < 0.5 ? '$1\r\n' : '$1\\n');
      runs.push(run);
    }
    let hides = 0;
    for (const run of runs) {
      const expected = reference(run);
      expect(base64HidesAnchor(run, 0), run.slice(0, 80)).toBe(expected);
      if (expected) hides++;
    }
    // Both answers were checked, many times each.
    expect(hides).toBeGreaterThan(500);
    expect(runs.length - hides).toBeGreaterThan(1000);
  });
});

describe('SECRET_RULES', () => {
  // Built at runtime so this file holds no key shape.
  const tail = 'FAKEfake0123456789FAKEfake0123456789FAKEfake0123456789FAKEfake';
  const shapes: Array<[string, string]> = [
    ['openai-key', `sk-${'proj'}-${tail.slice(0, 48)}`],
    ['openai-key', `sk-${'svcacct'}-${tail.slice(0, 48)}`],
    ['openai-key', `sk-${tail.slice(0, 48)}`],
    ['anthropic-key', `sk-${'ant'}-api03-${tail.slice(0, 40)}`],
    ['github-token', `gh${'p'}_${tail.slice(0, 36)}`],
    ['github-token', `gh${'o'}_${tail.slice(0, 36)}`],
    ['github-token', `gh${'u'}_${tail.slice(0, 36)}`],
    ['github-token', `gh${'s'}_${tail.slice(0, 36)}`],
    ['github-token', `gh${'r'}_${tail.slice(0, 36)}`],
    ['github-token', `github${'_pat'}_${tail.slice(0, 40)}`],
    ['jwt', `ey${'J'}hbGciOiJIUzI1NiJ9.ey${'J'}zdWIiOiIxMjM0NTY3ODkwIn0.${tail.slice(0, 30)}`],
    ['stripe-key', `sk${'_live'}_${tail.slice(0, 24)}`],
    ['stripe-key', `rk${'_live'}_${tail.slice(0, 24)}`],
    ['stripe-key', `sk${'_test'}_${tail.slice(0, 24)}`],
    ['slack-token', `xo${'xb'}-1234567890-${tail.slice(0, 20)}`],
    ['slack-token', `xo${'xp'}-1234567890-${tail.slice(0, 20)}`],
    ['huggingface-token', `h${'f'}_${tail.slice(0, 34)}`],
    ['groq-key', `gs${'k'}_${tail.slice(0, 52)}`],
    ['xai-key', `xa${'i'}-${tail.slice(0, 60)}`],
    ['google-key', `AI${'za'}${tail.slice(0, 35)}`],
    ['aws-access-key', `AK${'IA'}FAKE0FAKE1FAKE2F`],
    ['aws-access-key', `AS${'IA'}FAKE0FAKE1FAKE2F`],
    ['private-key', `-----BEGIN RSA ${'PRIVATE'} KEY-----\nMIIEFAKE\n-----END RSA PRIVATE KEY-----`],
    ['bearer-token', `Bea${'rer'} ${tail.slice(0, 30)}`],
    ['url-credentials', `https://bob:${tail.slice(0, 12)}@example.test/`],
    // An OpenAI Realtime client secret (32 hex digits), and Stripe's ephemeral keys.
    ['ephemeral-key', `e${'k'}_68af296e8e408191a1120ab6383263c2`],
    ['ephemeral-key', `e${'k'}_${'test'}_${tail.slice(0, 40)}`],
  ];

  test('an ephemeral key is not found in words that end in "ek" or in prose', () => {
    for (const text of ['week_2024_01_summary_report_v2', 'seek_FAKEFAKEFAKEFAKEFAKE0000', `e${'k'}_management_system_overview`])
      expect(secretSpans(text), text).toEqual([]);
  });

  test.each(shapes)('finds %s in %j, after a word character and an escape too, and masks all of it', (rule, key) => {
    for (const text of [`see ${key} here`, `_${key}`, `9${key}`, `k:\\n${key}`]) {
      const spans = secretSpans(text);
      expect(
        spans.map((span) => span.rule),
        text,
      ).toContain(rule);
      const masked = maskSecrets(text);
      expect(masked).toContain(`[${rule} `);
      for (const slice of [tail.slice(4, 12), tail.slice(12, 20), 'MIIEFAKE']) if (key.includes(slice)) expect(masked).not.toContain(slice);
    }
  });

  test('finds a 32-hex Azure key and a 40-character AWS secret only under a name that says so', () => {
    const hex = '0123456789abcdef0123456789abcdef';
    const aws = 'FAKEfake0123456789FAKEfake0123456789FAKE';
    expect(secretSpans(`"api-key": "${hex}"`).map((span) => span.rule)).toEqual(['azure-openai-key']);
    expect(secretSpans(hex, 'api-key').map((span) => span.rule)).toEqual(['azure-openai-key']);
    expect(secretSpans(`aws_secret_access_key = ${aws}`).map((span) => span.rule)).toEqual(['aws-secret-key']);
    expect(secretSpans(hex)).toEqual([]);
    expect(secretSpans(aws)).toEqual([]);
  });

  test('finds keys percent-encoded and base64-encoded, and masks the whole encoded run', () => {
    const key = `sk-${'proj'}-${tail.slice(0, 48)}`;
    for (const text of [
      key.replace(/-/g, '%2D'),
      `%2573${key.slice(1)}`,
      Buffer.from(key).toString('base64'),
      Buffer.from(`x${key}`).toString('base64url'),
      `Basic ${Buffer.from(`user:${tail.slice(0, 20)}`).toString('base64')}`,
    ]) {
      expect(secretSpans(text), text).toHaveLength(1);
      expect(maskSecrets(text)).toMatch(/^(Basic )?\[[a-z-]+( base64| url-encoded)? \d+ chars\]$/);
    }
  });

  test('finds a key split across array items, content parts and stream deltas, and masks every piece', () => {
    const key = `sk-${'proj'}-${tail.slice(0, 48)}`;
    expect(findSecrets({ stop: [key.slice(0, 2), key.slice(2)] }).map((found) => found.path)).toEqual(['.stop[*] (joined)']);
    expect(
      findSecrets({
        content: [
          { type: 'text', text: key.slice(0, 9) },
          { type: 'text', text: key.slice(9) },
        ],
      }).map((found) => found.path),
    ).toEqual(['.content[*].text (joined)']);
    const frames = [key.slice(0, 1), key.slice(1, 20), key.slice(20)].map((piece, atMs) => ({
      atMs,
      text: `data: {"delta":{"content":${JSON.stringify(piece)}}}\n\n`,
    }));
    expect(findSecrets({ frames }).map((found) => found.path)).toEqual(['.frames[*] "content" (joined)']);
    expect(JSON.stringify(maskValue({ stop: [key.slice(0, 2), key.slice(2)] }))).not.toContain(key.slice(10, 18));
  });

  test('finds keys written as JSON, JavaScript and HTML escapes, and masks the whole escaped run', () => {
    const key = `sk-${'proj'}-${tail.slice(0, 48)}`;
    const legacy = `s${'k'}-${tail.slice(0, 40)}`;
    const unicode = (text: string) => [...text].map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const texts = [
      `data: {"delta":{"content":"${unicode(key)}"}}`,
      `data: {"delta":{"content":"${unicode(key.slice(0, 3))}${key.slice(3)}"}}`,
      // A curly quote escaped right before a key (a model quoting it back): no letter before `sk-`.
      `data: {"content":"\\u201c${legacy}\\u201d"}`,
      `var k = "${[...key].map((character) => `\\x${character.charCodeAt(0).toString(16)}`).join('')}";`,
      `<code>${[...key].map((character) => `&#${character.charCodeAt(0)};`).join('')}</code>`,
      `<code>${key.replace(/-/g, '&#x2d;')}</code>`,
      `<code>${key.replace(/-/g, '&hyphen;')}</code>`,
      `<code>${[...key].map((character) => `&#0000${character.charCodeAt(0)}`).join('')}</code>`,
      `<code>${key.replace(/-/g, '&#x000002d;')}</code>`,
      `var k = "\\u{73}${key.slice(1)}";`,
      `var k = "\\163${key.slice(1)}";`,
    ];
    // A raw frame from an encoder that escapes slashes: the URL's credentials, and an AWS secret.
    const url = 'data: {"content":"https:\\/\\/bob:FAKEpassw0rd9@db.example.test\\/x"}';
    expect(maskSecrets(url)).not.toContain('FAKEpassw0rd9');
    expect(findSecrets({ frames: [{ text: url }] }, '', JSON.stringify({ frames: [{ text: url }] })).map((found) => found.rule)).toEqual([
      'url-credentials escaped',
    ]);
    for (const text of texts) {
      expect(
        secretSpans(text).map((span) => span.rule),
        text,
      ).toEqual([expect.stringMatching(/^openai-key( escaped)?$/)]);
      const masked = maskSecrets(text);
      expect(masked).toMatch(/\[openai-key (escaped )?\d+ chars\]/);
      expect(masked).not.toContain(tail.slice(8, 16));
      expect(mayHoldSecret(text)).toBe(true);
    }
  });

  test('finds a key escaped in a raw stream frame when the tape line shows no anchor', () => {
    const key = `sk-${'proj'}-${tail.slice(0, 48)}`;
    const escaped = [...key].map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    // One frame (nothing to join) and frames whose fields each hold the whole key.
    for (const texts of [[`data: {"content":"${escaped}"}\n\n`], [`data: {"content":"${escaped}"}\n\n`, 'data: {"content":"ok"}\n\n', 'data: [DONE]\n\n']]) {
      const value = { response: { stream: { format: 'sse', frames: texts.map((text, atMs) => ({ atMs, text })) } } };
      const line = JSON.stringify(value);
      expect(line).not.toContain('sk-');
      expect(findSecrets(value, '', line).map((found) => found.path)).toEqual(['.response.stream.frames[0].text']);
    }
  });

  test('finds a key in base64 glued to other base64 characters and in MIME-wrapped base64, and masks every line', () => {
    const key = `gh${'p'}_${tail.slice(0, 36)}`;
    const encoded = Buffer.from(key).toString('base64');
    for (const glue of ['', 'Q', 'QQ', 'QQQ', 'QQQQQ']) {
      const text = `file ${glue}${encoded} end`;
      expect(
        secretSpans(text).map((span) => span.rule),
        glue,
      ).toEqual(['github-token base64']);
      expect(maskSecrets(text)).toMatch(/^file \[github-token base64 \d+ chars\] end$/);
    }
    // A MIME part wraps base64 at 76 characters: the key straddles a line break, as written and as
    // a JSON string holds it.
    const wrapped = Buffer.from(`${'x'.repeat(40)}${key}${'y'.repeat(60)}`)
      .toString('base64')
      .replace(/.{76}/g, '$&\r\n');
    expect(wrapped.split('\r\n').length).toBeGreaterThanOrEqual(3);
    const masked = maskSecrets(`Content-Transfer-Encoding: base64\r\n\r\n${wrapped}--XX--`);
    expect(masked).toMatch(/^Content-Transfer-Encoding: base64\r\n\r\n\[github-token base64 \d+ chars\]/);
    for (const line of wrapped.split('\r\n').filter((line) => line.length > 8)) expect(masked).not.toContain(line.slice(0, 16));
    const value = { body: { text: wrapped } };
    expect(findSecrets(value, '', JSON.stringify(value)).map((found) => found.rule)).toEqual(['github-token base64']);
  });

  test('finds a key in UTF-16 or UTF-32 at any alignment, without a byte order mark, as text or as bytes, gzipped too', () => {
    const key = `gh${'p'}_${tail.slice(0, 36)}`;
    const utf16 = Buffer.from(`key ${key}`, 'utf16le');
    // Stored as text: UTF-16 of ASCII is valid UTF-8.
    const text = utf16.toString('utf8');
    expect(text).toContain('\u0000');
    expect(secretSpans(text).map((span) => span.rule)).toEqual(['github-token utf-16']);
    expect(maskSecrets(text)).not.toContain(tail.slice(8, 16).split('').join('\u0000'));
    const value = { body: { text } };
    expect(findSecrets(value, '', JSON.stringify(value)).map((found) => found.path)).toEqual(['.body.text']);
    const cjk = Buffer.from(`\ufeff${'漢字'.repeat(150)}${key}`, 'utf16le');
    const utf32 = Buffer.alloc(key.length * 4);
    [...key].forEach((character, index) => utf32.writeUInt32LE(character.charCodeAt(0), index * 4));
    for (const bytes of [Buffer.concat([Buffer.from([7]), utf16]), Buffer.from(`key ${key}`, 'utf16le').swap16(), cjk, gzipSync(utf16), utf32]) {
      expect(findSecrets({ body: { base64: bytes.toString('base64') } }).map((found) => found.path)).toEqual(['.body.base64 (decoded)']);
    }
  });

  test('finds a key encoded in base64 twice, and masks it', () => {
    const key = `sk-${'proj'}-${tail.slice(0, 48)}`;
    const twice = Buffer.from(Buffer.from(key).toString('base64')).toString('base64');
    expect(secretSpans(`see ${twice}`).map((span) => span.rule)).toEqual(['openai-key base64 twice']);
    expect(maskValue({ content: twice })).toEqual({ content: `[openai-key base64 twice ${twice.length} chars]` });
    const value = { content: twice };
    expect(findSecrets(value, '', JSON.stringify(value))).toHaveLength(1);
  });

  test('finds a key under two encodings stacked, written with lookalike characters, or after a \\v escape', () => {
    const key = `sk-${'proj'}-${tail.slice(0, 48)}`;
    const legacy = `s${'k'}-${tail.slice(0, 40)}`;
    const html = (text: string) => [...text].map((character) => `&#${character.charCodeAt(0)};`).join('');
    const unicode = (text: string) => [...text].map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const percent = (text: string) => [...text].map((character) => `%${character.charCodeAt(0).toString(16)}`).join('');
    const base64 = (text: string) => Buffer.from(text).toString('base64');
    for (const text of [
      base64(html(key)),
      base64(unicode(key)),
      html(percent(key)),
      unicode(percent(key)),
      `${key.slice(0, 2)}\u200b${key.slice(2)}`,
      key.replace(/-/g, '\uff0d'),
      key.replace(/-/g, '\u2011'),
      `x\\v${legacy}`,
    ]) {
      expect(secretSpans(text).length, text).toBe(1);
      expect(maskSecrets(text), text).not.toContain(tail.slice(8, 16));
      const value = { content: text };
      expect(findSecrets(value, '', JSON.stringify(value)), text).toHaveLength(1);
    }
    // Prose dashes stay prose.
    expect(secretSpans('a task\u2014then a risk\u2013free ask\u2014done')).toEqual([]);
  });

  test('finds base64 wrapped at CR alone or at JSON-escaped \\u000a, and URL credentials without a scheme', () => {
    const key = `gh${'p'}_${tail.slice(0, 36)}`;
    const encoded = Buffer.from(`${'x'.repeat(30)}\n${key}\n${'y'.repeat(40)}`).toString('base64');
    for (const wrap of ['\r', '\\u000a', '\\u000d\\u000a']) {
      const text = encoded.replace(/.{60}/g, `$&${wrap}`);
      expect(
        secretSpans(text).map((span) => span.rule),
        wrap,
      ).toEqual([expect.stringMatching(/^github-token base64/)]);
      expect(maskSecrets(text), wrap).not.toContain(encoded.slice(60, 76));
    }
    expect(maskSecrets('see //:FAKEpassw0rd9@db.example.test/x')).toBe('see //[url-credentials 14 chars]@db.example.test/x');
  });

  test('excerpt masks before it cuts, so no part of a key straddling the cut shows', () => {
    const key = `sk-${'proj'}-${tail.slice(0, 48)}`;
    for (const before of [0, 20, 45, 57]) {
      const text = `${'a'.repeat(before)} ${key} after`;
      const cut = excerpt(text, 60);
      expect(cut.length, `${before}`).toBeLessThanOrEqual(60);
      expect(cut, `${before}`).not.toContain(tail.slice(4, 10));
      expect(cut, `${before}`).not.toContain('sk-proj-F');
    }
    expect(excerpt('short', 60)).toBe('short');
    expect(excerpt('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  test('finds URL credentials with an empty user and an AWS key id glued to more capitals', () => {
    expect(maskSecrets('postgres://:FAKEpassw0rd@db.example.test/app')).toBe('postgres://[url-credentials 13 chars]@db.example.test/app');
    expect(maskSecrets(`id ${'AK'}IAFAKEFAKEFAKE0000XYZ9 and ${'AS'}IAFAKEFAKEFAKE00001 end`)).toBe(
      'id [aws-access-key 20 chars]XYZ9 and [aws-access-key 20 chars]1 end',
    );
  });

  test('decodes base64 payloads: gzip, UTF-16 and binary bytes', () => {
    const key = `gh${'p'}_${tail.slice(0, 36)}`;
    for (const bytes of [gzipSync(`{"a":"${key}"}`), Buffer.from(`\ufeff${key}`, 'utf16le'), Buffer.concat([Buffer.from([0, 255, 254]), Buffer.from(key)])]) {
      expect(findSecrets({ body: { base64: bytes.toString('base64') } }).map((found) => found.path)).toEqual(['.body.base64 (decoded)']);
    }
  });

  test.each([
    'use sk- as the prefix',
    'task-management-system-for-everyone-in-2024',
    'risk-3f2a9c1b7e4d5f6a8b9c0d1e',
    'gpt-4o-mini-2024-07-18',
    'claude-3-5-sonnet-20241022',
    'chatcmpl-AbCdEfGh1234567890AbCdEf',
    'msg_01XFDUDYJgAACzvnptvVoYEL',
    'toolu_01A09q90qw90lq917835lq9',
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    '0123456789abcdef0123456789abcdef',
    '550e8400-e29b-41d4-a716-446655440000',
    'The Bearer of this letter is authorised to collect the parcel.',
    'Basic understanding of everything, internationalization included',
    'see https://example.test/path?query=1 and http://localhost:8080/x',
  ])('does not flag %j', (text) => {
    expect(secretSpans(text)).toEqual([]);
  });

  test('flags nothing in the captured wire samples', () => {
    const root = new URL('../test/fixtures/', import.meta.url);
    const files = readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.length).toBeGreaterThanOrEqual(9);
    for (const entry of files) {
      const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
      expect(secretSpans(text), entry.name).toEqual([]);
      if (entry.name.endsWith('.json')) expect(findSecrets(JSON.parse(text)), entry.name).toEqual([]);
    }
  });
});
