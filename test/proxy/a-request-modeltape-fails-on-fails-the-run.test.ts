import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { startProxy, summaryFailed } from '../../proxy/internal.js';
import { loadTape, serializeTape } from '../../recordings/internal.js';
import { closeAfterEach } from '../support/close-after-each.js';
import { runMain } from '../support/cli.js';
import { recordTape } from '../support/record-tape.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// A tape hand-edited so that a response header holds what Node refuses to send (a character past
// U+00FF, a line break): the proxy cannot answer from it. That is modeltape failing, and it must
// fail the run.
describe('a request modeltape itself fails on', () => {
  const dir = tempDir({ inProject: true });
  const closing = closeAfterEach();
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

  async function taintedTape(value: string): Promise<string> {
    const upstream = closing(await startStandInUpstream(() => ({ headers: { 'content-type': 'application/json', 'x-trace': 'ok' }, body: '{"ok":true}' })));
    const tape = `${dir}/tainted.jsonl`;
    await recordTape(
      tape,
      async ({ url }) => {
        await (await fetch(`${url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).arrayBuffer();
      },
      { proxy: { upstreams: { openai: upstream.url } } },
    );
    // Written canonically, as modeltape writes: replay opens such a line lazily, so a value it
    // can index is met only when the exchange is served.
    const { header, exchanges } = loadTape(tape);
    const exchange = exchanges[0]!.exchange;
    writeFileSync(
      tape,
      serializeTape(header, [{ ...exchange, response: { ...exchange.response, headers: { ...exchange.response.headers, 'x-trace': value } } }]),
    );
    return tape;
  }

  test('is answered 500, counted, named in the summary, and fails it', async () => {
    const tape = await taintedTape('ok \u2192 fine');
    const proxy = await startProxy({ tape, mode: 'replay', log: () => undefined });
    const response = await fetch(`${proxy.url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(text).toContain('modeltape_internal_error');
    const summary = await proxy.close();
    expect(summary.internalErrors).toBe(1);
    expect(summary.hits).toBe(0);
    expect(summaryFailed(summary)).toBe(true);
    expect(summary.problems.join('\n')).toMatch(
      /modeltape failed on POST \/openai\/v1\/chat\/completions: [\s\S]*tainted\.jsonl:2: [\s\S]*U\+2192, which no HTTP header may carry/,
    );
  });

  test('makes modeltape run exit 1, and verify names the line and the header', async () => {
    const tape = await taintedTape('ok \u2192 fine');
    const script = `${dir}/client.mjs`;
    writeFileSync(
      script,
      `await (await fetch(process.env.MODELTAPE_URL + '/openai/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(body)} })).arrayBuffer();\n`,
    );
    const run = await runMain(['run', '--tape', tape, '--', process.execPath, script], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr + run.stdout).toContain('1 request modeltape failed on');
    const verify = await runMain(['verify', tape], { cwd: dir });
    expect(verify.code).not.toBe(0);
    expect(verify.stdout + verify.stderr).toMatch(/tainted\.jsonl:2: .*\.response\.headers\["x-trace"\].*U\+2192/);
  });

  test('a line break in a header is never sent: nothing is injected into the response', async () => {
    const tape = await taintedTape('ok\r\nset-cookie: injected=1');
    const proxy = await startProxy({ tape, mode: 'replay', log: () => undefined });
    const response = await fetch(`${proxy.url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await response.arrayBuffer();
    expect(response.status).toBe(500);
    expect(response.headers.get('set-cookie')).toBeNull();
    const summary = await proxy.close();
    expect(summary.internalErrors).toBe(1);
    expect(summary.problems.join('\n')).toContain('line break');
  });

  test('written by hand, not canonically, is refused when the tape opens, naming the line', async () => {
    const tape = await taintedTape('ok \u2192 fine');
    const [header, line] = readFileSync(tape, 'utf8').trimEnd().split('\n');
    writeFileSync(tape, `${header}\n${JSON.stringify(JSON.parse(line!), null, 0).replace('{', '{ ')}\n`);
    await expect(startProxy({ tape, mode: 'replay', log: () => undefined })).rejects.toThrow(
      /tainted\.jsonl:2[^\n]*\.response\.headers\["x-trace"\][^\n]*U\+2192/,
    );
  });
});
