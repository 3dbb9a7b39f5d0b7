import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { beforeAll, describe, expect, test } from 'vitest';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

// An agent that sends three requests; the drifted run changes two of them.
const AGENT = `import OpenAI from 'openai';
const client = new OpenAI({ maxRetries: 0 });
const city = process.env.CITY ?? 'Paris';
const ask = (content) => client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'system', content: 'You are a shipping assistant.' }, { role: 'user', content }] });
await ask('Ship the parcel to ' + city);
await ask('How long will it take?');
await ask(process.env.LAST ?? 'Thanks');
console.log('agent done');
`;

describe('modeltape drift', () => {
  const dir = tempDir({ scope: 'file', inProject: true });
  let tape: string;
  let agent: string;
  beforeAll(async () => {
    tape = `${dir}/agent.jsonl`;
    agent = `${dir}/agent.mjs`;
    writeFileSync(agent, AGENT);
    await recordTape(tape, async ({ openai }) => {
      const client = new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 });
      for (const content of ['Ship the parcel to Paris', 'How long will it take?', 'Thanks']) {
        await client.chat.completions.create({
          model: 'gpt-4o',
          messages: [
            { role: 'system', content: 'You are a shipping assistant.' },
            { role: 'user', content },
          ],
        });
      }
    });
  });

  test('runs the whole command despite misses, reports every drift grouped by endpoint, and exits 1', async () => {
    const result = await runMain(['drift', '--tape', tape, '--', process.execPath, agent], { env: { CITY: 'Lyon', LAST: 'Thank you!' }, cwd: process.cwd() });
    expect(result.stdout).toContain('agent done');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`modeltape drift ${tape}: 3 requests, 1 replayed, 2 drifted`);
    expect(result.stderr).toContain('POST /v1/chat/completions (openai): 2 drifted');
    expect(result.stderr).toContain('.messages[*].content  (2×)');
    expect(result.stderr).toContain('at .messages[1].content: recorded "Ship the parcel to Paris" sent "Ship the parcel to Lyon"');
    expect(result.stderr).toContain('at .messages[1].content: recorded "Thanks" sent "Thank you!"');
  });

  test('--json prints the report for machines, and --html writes a page', async () => {
    const html = `${dir}/report/drift.html`;
    const result = await runMain(['drift', '--tape', tape, '--json', '--html', html, '--', process.execPath, agent], {
      env: { CITY: 'Lyon' },
      cwd: process.cwd(),
    });
    expect(result.code).toBe(1);
    // stdout holds the report alone: the command's own output went to stderr.
    expect(result.stderr).toContain('agent done');
    const report = JSON.parse(result.stdout) as {
      totals: { drifted: number };
      drifts: Array<{ nearest: { line: number }; differences: Array<{ path: string }> }>;
    };
    expect(report.totals.drifted).toBe(1);
    expect(report.drifts[0]!.nearest.line).toBe(2);
    expect(report.drifts[0]!.differences.map((difference) => difference.path)).toEqual(['.messages[1].content']);
    expect(existsSync(html)).toBe(true);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('Ship the parcel to Lyon');
    expect(page).toContain('Ship the parcel to Paris');
  });

  test('exits 0 with "no drift" when the run matches the tape', async () => {
    const result = await runMain(['drift', '--tape', tape, '--', process.execPath, agent], { cwd: process.cwd() });
    expect(result.stderr).toContain('3 requests, 3 replayed, 0 drifted');
    expect(result.stderr).toContain('no drift');
    expect(result.code).toBe(0);
  });
});
