import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const DEMO = fileURLToPath(new URL('../../examples/runtime-demo.mjs', import.meta.url));

test('npm run example:runtime journals a run, replays it strictly, and survives a crash after the send with one approved re-run', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [DEMO], { env: { ...process.env, CI: 'true' } });
  expect(stdout.split('\n').filter(Boolean)).toEqual([
    'run run-1: completed: "Parcel P-1 is in Lyon; I told the customer." (3 model calls, 2 tool runs, 16 journal records)',
    'strict replay: identical output, 0 model calls, 0 tool runs, 0 backstop hits',
    'crash harness: crash at AfterToolEffect send_message 1.1.tool → runtime-2 resumed: waiting → runtime-2 paused: waiting on scenario-1/1.1.tool (interrupted_side_effect) → operator approved scenario-1/1.1.tool → runtime-3 resumed: completed',
    'send_message ran 2 times (once more, under the approval); invariants: all 7 hold',
  ]);
});
