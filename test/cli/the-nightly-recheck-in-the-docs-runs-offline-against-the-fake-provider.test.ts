import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeProvider } from 'modeltape/fake-provider';
import { afterEach, describe, expect, test } from 'vitest';
import { runMain } from '../support/cli.js';
import { recordRequests } from '../support/recheck-tapes.js';
import { tempDir } from '../support/temp-dir.js';

const PAGE = fileURLToPath(new URL('../../docs/recheck.md', import.meta.url));

// The command line of the workflow's recheck step, as the page writes it, in words (quotes taken off).
function workflowCommand(): string[] {
  const yaml = /```yaml\n([\s\S]*?)```/.exec(readFileSync(PAGE, 'utf8'))![1]!;
  const line = /^\s*run: npx modeltape (recheck .*)$/m.exec(yaml)![1]!;
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

describe('the nightly workflow of docs/recheck.md', () => {
  const dir = tempDir();
  const closers: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  test('runs its command line offline, with the FakeProvider where --live stands, and fails on a regression', async () => {
    const args = workflowCommand();
    expect(args).toContain('--live');
    expect(args).toEqual(expect.arrayContaining(['--fail-on', 'regression', '--html', 'recheck.html']));
    const then = new FakeProvider();
    then.when({ lastMessage: 'Hi' }, { always: true }).willSay('Hello.');
    const fake = await then.listen();
    closers.push(() => fake.close());
    await recordRequests(join(dir, 'tapes', 'nested', 'chat.jsonl'), { openai: fake.url }, [
      { upstream: 'openai', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] } },
    ]);
    const offline = args.map((arg) => (arg === '--live' ? `--upstream=openai=${fake.url}` : arg));
    const held = await runMain(offline, { cwd: dir });
    expect(held.stdout).toContain('1 checked: 1 identical');
    expect(held.code).toBe(0);
    expect(existsSync(join(dir, 'recheck.html'))).toBe(true);
    expect(existsSync(join(dir, 'recheck.json'))).toBe(true);

    const now = new FakeProvider();
    now.when({ lastMessage: 'Hi' }).willSay('Hello.', { finish: 'length' });
    const gone = await now.listen();
    closers.push(() => gone.close());
    const failed = await runMain(
      args.map((arg) => (arg === '--live' ? `--upstream=openai=${gone.url}` : arg)),
      { cwd: dir },
    );
    expect(failed.stdout).toContain('REGRESSION  tapes/nested/chat.jsonl:2');
    expect(failed.code).toBe(1);
  }, 60_000);
});
