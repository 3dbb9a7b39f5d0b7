import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { compileKeyRules, createHeader, loadTape, serializeTape, type Exchange } from 'modeltape/recordings';
import { runMain } from '../support/cli.js';
import { capturedChatRequest, exchangeOf } from '../support/exchanges.js';
import { tempDir } from '../support/temp-dir.js';

const modeltape = runMain;

/** A tape of chat requests under the default rules; `withId` of them carry a request id. */
function writeTape(file: string, contents: string[], withId: number[] = []): void {
  const rules = compileKeyRules();
  const exchanges: Exchange[] = contents.map((content, index) => {
    const body = { model: 'gpt-4o', ...(withId.includes(index) ? { metadata: { request_id: `r-${index}` } } : {}), messages: [{ role: 'user', content }] };
    return exchangeOf(capturedChatRequest(body, rules), { index }, rules);
  });
  writeFileSync(file, serializeTape(createHeader(rules.rules), exchanges));
}

describe('modeltape rekey FILE…', () => {
  const dir = tempDir();
  const setUp = () => {
    mkdirSync(`${dir}/tapes/checkout`, { recursive: true });
    writeTape(`${dir}/tapes/chat.jsonl`, ['a', 'b', 'c'], [1]);
    writeTape(`${dir}/tapes/checkout/pay.jsonl`, ['pay'], [0]);
    writeTape(`${dir}/tapes/checkout/plain.jsonl`, ['no id here']);
    writeFileSync(`${dir}/tapes/notes.txt`, 'not a tape');
    const config = `${dir}/modeltape.config.json`;
    writeFileSync(config, JSON.stringify({ normalizers: [{ path: '.metadata.request_id' }] }));
    return config;
  };

  test('expands a glob itself, and with --dry-run lists per tape which keys would change and why, writing nothing', async () => {
    const config = setUp();
    const before = readFileSync(`${dir}/tapes/chat.jsonl`, 'utf8');
    const result = await modeltape(['rekey', `${dir}/tapes/**/*.jsonl`, '--config', config, '--dry-run']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.filter((line) => !line.startsWith('  '))).toEqual([
      `${dir}/tapes/chat.jsonl: 1 of 3 keys changed (new key rules)`,
      `${dir}/tapes/chat.jsonl: would be rewritten (dry run)`,
      `${dir}/tapes/checkout/pay.jsonl: 1 of 1 key changed (new key rules)`,
      `${dir}/tapes/checkout/pay.jsonl: would be rewritten (dry run)`,
      `${dir}/tapes/checkout/plain.jsonl: 0 of 1 key changed (new key rules)`,
      `${dir}/tapes/checkout/plain.jsonl: would be rewritten (dry run)`,
      'rekey: 3 tapes: 3 would be rewritten (2 of 5 keys changed), 0 unchanged; dry run, nothing written',
    ]);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ {2}line 3: [0-9a-f]{12}… → [0-9a-f]{12}… POST \/v1\/chat\/completions \(openai\): normalizer \{"path":".metadata.request_id"\} \(added\) at .metadata.request_id$/,
      ),
    );
    expect(readFileSync(`${dir}/tapes/chat.jsonl`, 'utf8')).toBe(before);
  });

  test('takes several files and globs, rewrites each tape, and sums up; a second pass changes nothing', async () => {
    const config = setUp();
    const result = await modeltape([
      'rekey',
      `${dir}/tapes/chat.jsonl`,
      `${dir}/tapes/checkout/p{ay,lain}.json?`,
      `${dir}/tapes/chat.jsonl`,
      '--config',
      config,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('rekey: 3 tapes: 3 rewritten (2 of 5 keys changed), 0 unchanged');
    for (const tape of ['chat', 'checkout/pay', 'checkout/plain'])
      expect(loadTape(`${dir}/tapes/${tape}.jsonl`).header.keyRules.normalizers).toEqual([{ path: '.metadata.request_id' }]);
    const again = await modeltape(['rekey', `${dir}/tapes/*.jsonl`, `${dir}/tapes/checkout/*.jsonl`, '--config', config]);
    expect(again.stdout.trimEnd().split('\n').at(-1)).toBe('rekey: 3 tapes: 0 rewritten (0 of 5 keys changed), 3 unchanged');
  });

  test('is a usage error (exit 2) when a file or glob matches nothing, and then touches no tape', async () => {
    const config = setUp();
    const before = readFileSync(`${dir}/tapes/chat.jsonl`, 'utf8');
    const result = await modeltape(['rekey', `${dir}/tapes/chat.jsonl`, `${dir}/tapes/*.jsnol`, '--config', config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `modeltape rekey: no tape matches "${dir}/tapes/*.jsnol" (the other arguments match 1 file; nothing was rekeyed). Check the path, or quote a glob: 'tapes/**/*.jsonl'.\n`,
    );
    expect(readFileSync(`${dir}/tapes/chat.jsonl`, 'utf8')).toBe(before);
    expect((await modeltape(['rekey', `${dir}/nowhere/*.jsonl`])).code).toBe(2);
    expect((await modeltape(['rekey'])).code).toBe(2);
  });

  test('names a tape it cannot read and carries on with the others, exiting 1', async () => {
    const config = setUp();
    writeFileSync(`${dir}/tapes/broken.jsonl`, '{"not":"a tape"}\n');
    const result = await modeltape(['rekey', `${dir}/tapes/*.jsonl`, '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`modeltape: ${dir}/tapes/broken.jsonl: Invalid tape`);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('rekey: 2 tapes: 1 rewritten (1 of 3 keys changed), 0 unchanged, 1 failed');
  });
});
