import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const DEMO = fileURLToPath(new URL('../../examples/demo.mjs', import.meta.url));

test('npm start records the agent through the proxy from the fake, then replays it strictly and offline', async () => {
  // Under CI=true, as CI runs it: the demo records only from the local fake.
  const { stdout } = await promisify(execFile)(process.execPath, [DEMO], { env: { ...process.env, CI: 'true', OPENAI_API_KEY: '' } });
  const lines = stdout.split('\n');
  expect(lines[0]).toBe('recorded: get_weather({"city":"Paris"}) → "It is 14°C with light rain in Paris." (72 tokens)');
  expect(lines[1]).toBe(lines[0]!.replace('recorded', 'replayed'));
  expect(stdout).toMatch(/modeltape record \S+weather\.jsonl: 0 hits, 0 misses, 2 recorded/);
  expect(stdout).toMatch(/modeltape replay \S+weather\.jsonl: 2 hits, 0 misses, 0 recorded, 0 passthrough, 0 refused, 0 upstream connections/);
  expect(stdout).toContain('replay: identical answers, 0 upstream connections');
});
