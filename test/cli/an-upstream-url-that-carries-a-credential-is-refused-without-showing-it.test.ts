import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

// A credential with no key shape (a password, an internal token): only its place says what it is.
const SECRET = 'hunter2-FAKE-9f8e7d';

const dir = tempDir();

// Every way an upstream's URL can carry a credential, and every way it is refused: each message
// names the URL, never the credential in it. Port 9 (discard) on loopback: nothing is reached.
const CASES: Array<[string, string]> = [
  ['a credential query parameter', `http://127.0.0.1:9/?api_key=${SECRET}`],
  ['one among others', `http://127.0.0.1:9/v1?region=eu&token=${SECRET}`],
  ['a password', `http://ada:${SECRET}@127.0.0.1:9/`],
  ['a token in the fragment', `http://127.0.0.1:9/#access_token=${SECRET}`],
  ['a URL that does not parse', `http//127.0.0.1:9/?key=${SECRET}`],
  ['a scheme that is not http', `ftp://127.0.0.1:9/?api_key=${SECRET}`],
];

test.each(CASES)('--upstream with %s is refused, and the message names the URL without the credential', async (_what, url) => {
  for (const command of [
    ['proxy', '--tape', join(dir, 't.jsonl'), '--upstream', `openai=${url}`],
    ['run', '--tape', join(dir, 't.jsonl'), '--upstream', `openai=${url}`, '--', process.execPath, '-e', ''],
  ]) {
    const result = await runMain(command, { cwd: dir });
    expect(result.code, command[0]).toBe(2);
    expect(result.stderr).toContain('Invalid URL for upstream "openai"');
    expect(result.stderr).toContain('REDACTED');
    expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET);
    expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET.slice(0, 8));
  }
});

test('an --upstream that is not name=url, and an upstream in the config file, are shown without their credential', async () => {
  const bare = await runMain(['proxy', '--tape', join(dir, 't.jsonl'), '--upstream', `http://ada:${SECRET}@127.0.0.1:9/`], { cwd: dir });
  expect(bare.code).toBe(2);
  expect(bare.stderr).toContain('Invalid --upstream "http://REDACTED@127.0.0.1:9/"');
  expect(bare.stderr).not.toContain(SECRET);

  writeFileSync(join(dir, 'modeltape.config.json'), JSON.stringify({ upstreams: { openai: `http://127.0.0.1:9/?api_key=${SECRET}` } }));
  const configured = await runMain(['proxy', '--tape', join(dir, 't.jsonl')], { cwd: dir });
  expect(configured.code).not.toBe(0);
  expect(configured.stderr).toContain('Invalid URL for upstream "openai"');
  expect(configured.stderr).toContain('REDACTED');
  expect(`${configured.stdout}${configured.stderr}`).not.toContain(SECRET);
});
