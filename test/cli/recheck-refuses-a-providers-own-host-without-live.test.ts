import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runMain } from '../support/cli.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { chatCompletion, recordRequests } from '../support/recheck-tapes.js';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// Each refusal here comes before anything starts: no proxy, no socket, nothing sent.
describe('modeltape recheck without --live', () => {
  const dir = tempDir({ scope: 'file' });
  let upstream: StandInUpstream;

  beforeAll(async () => {
    upstream = await startStandInUpstream(() => ({ body: chatCompletion('Hello.') }));
    await recordRequests(join(dir, 'chat.jsonl'), { openai: upstream.url }, [
      { upstream: 'openai', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] } },
    ]);
    upstream.received.length = 0;
  });
  afterAll(async () => {
    await upstream.close();
  });

  test("refuses to send to a provider's own host, and says to add --live or name a stand-in", async () => {
    const result = await runMain(['recheck', 'chat.jsonl'], { cwd: dir, env: { OPENAI_API_KEY: fakeOpenAiKey() } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `modeltape recheck: the tapes' requests to "openai" would go to https://api.openai.com, a provider's own host, which spends money with a real key. Add --live to send them there (keys from the environment), or name a stand-in with --upstream openai=http://127.0.0.1:PORT.\n`,
    );
    expect(result.stdout).toBe('');
  });

  test("refuses a provider's own host named with --upstream too", async () => {
    const result = await runMain(['recheck', 'chat.jsonl', '--upstream', 'openai=https://api.openai.com/'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("a provider's own host");
    expect(result.stderr).toContain('Add --live');
  });

  test('--live without the key the tapes need names the variable to set, and sends nothing', async () => {
    const result = await runMain(['recheck', 'chat.jsonl', '--live'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `modeltape recheck: with --live, the tapes' requests to "openai" need a key: set OPENAI_API_KEY in the environment (nothing was sent).\n`,
    );
  });

  test('a stand-in named with --upstream is checked, with no key at all', async () => {
    const result = await runMain(['recheck', 'chat.jsonl', '--upstream', `openai=${upstream.url}`], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('1 checked: 1 identical');
    expect(upstream.received).toHaveLength(1);
    expect(upstream.received[0]!.headers.authorization).toBeUndefined();
  });
});
