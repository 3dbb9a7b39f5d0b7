import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runMain } from '../support/cli.js';
import { writeReplayingSuite, writeTapeByHand } from '../support/hand-written-tape.js';
import { tempDir } from '../support/temp-dir.js';

// A recorded answer, model name or finish reason is data from a provider: its control characters
// must not reach a terminal as controls. ESC [2J clears the screen, ESC ] 0;… BEL retitles the
// window, BEL rings, U+009B is the one-character CSI (a C1 control), and a NUL truncates what
// some tools show. Every text output of every command writes them as escapes; the pages as text.
const HOSTILE = '\u001b[2J\u001b]0;owned\u0007\u0007\u009b31m\u0000';
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// What an escaped control reads as: the JSON escape a reader can paste back (`\u001b`, `\u009b`).
const ESCAPED = /\\u00(?:1b|07|9b|00)/g;

const dir = tempDir();

const completion = (content: string, finish: string, model: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1770000000,
  model,
  choices: [{ index: 0, message: { role: 'assistant', refusal: null, content }, finish_reason: finish, logprobs: null }],
  usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 },
});

test('no command writes a control character from a tape raw: mutate, report, inspect, drift and run escape them in every text output, and the pages show them as text', async () => {
  const model = `gpt-4o-mini${HOSTILE}`;
  // Each request's text holds them too: what drift and run show of a request that drifted.
  const { tape, requests } = writeTapeByHand(dir, 'hostile', [
    // In an answer's text.
    {
      request: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `row 0 ${HOSTILE}` }] },
      response: { json: completion(`Hello ${HOSTILE} world`, 'stop', 'gpt-4o-mini') },
    },
    // In a model name, asked for and answered.
    { request: { model, messages: [{ role: 'user', content: `row 1 ${HOSTILE}` }] }, response: { json: completion('ok', 'stop', model) } },
    // In a finish reason.
    {
      request: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `row 2 ${HOSTILE}` }] },
      response: { json: completion('ok', `stop${HOSTILE}`, 'gpt-4o-mini') },
    },
  ]);
  const suite = [process.execPath, writeReplayingSuite(dir), requests];
  const outputs: Record<string, string> = {};
  const cli = async (name: string, args: string[]) => {
    const result = await runMain(args, { cwd: dir, env: { CI: 'true' } });
    // CMD writes nothing; what is here is modeltape's own.
    outputs[`${name} (stdout)`] = result.stdout;
    outputs[`${name} (stderr)`] = result.stderr;
    return result.code;
  };
  const mutate = ['mutate', '--tape', tape, '--operators', 'refusal,finish-length', '--jobs', '2'];
  const codes = [
    await cli('mutate', [...mutate, '--html', 'mutate.html', '--', ...suite]),
    await cli('mutate --json', [...mutate, '--json', '--', ...suite]),
    await cli('report', ['report', tape, '--html', 'report.html']),
    await cli('report --json', ['report', tape, '--json']),
    await cli('inspect', ['inspect', tape]),
    await cli('inspect --json', ['inspect', tape, '--json']),
    await cli('drift', ['drift', '--tape', tape, '--html', 'drift.html', '--', ...suite, '--drift']),
    await cli('drift --json', ['drift', '--tape', tape, '--json', '--', ...suite, '--drift']),
    await cli('run', ['run', '--tape', tape, '--', ...suite, '--drift']),
  ];
  expect(codes).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1]);

  const raw = Object.entries(outputs)
    .map(([name, text]) => [name, [...text.matchAll(CONTROL)].map(([character]) => character.charCodeAt(0).toString(16))] as const)
    .filter(([, found]) => found.length > 0);
  expect(Object.fromEntries(raw)).toEqual({});
  // The hostile text was shown, escaped, by each command: the check above looked at something.
  for (const name of ['mutate (stdout)', 'mutate --json (stdout)', 'report (stdout)', 'report --json (stdout)', 'inspect (stdout)', 'inspect --json (stdout)'])
    expect(outputs[name]!.match(ESCAPED)?.length ?? 0, name).toBeGreaterThanOrEqual(5);
  for (const name of ['drift (stderr)', 'drift --json (stdout)', 'run (stderr)'])
    expect(outputs[name]!.match(ESCAPED)?.length ?? 0, name).toBeGreaterThanOrEqual(5);

  // --json stays the same JSON: the escapes are JSON's own, so a reader gets the text as recorded.
  const report = JSON.parse(outputs['report --json (stdout)']!) as { coverage: { models: Array<{ name: string }>; finishReasons: Array<{ name: string }> } };
  expect(report.coverage.models.map((seen) => seen.name)).toContain(model);
  expect(report.coverage.finishReasons.map((seen) => seen.name)).toContain(`openai-chat stop${HOSTILE}`);
  const listed = JSON.parse(outputs['inspect --json (stdout)']!) as { groups: Array<{ model: string }> };
  expect(listed.groups.map((group) => group.model)).toContain(model);

  // The pages hold no control character either, and show each as its escape.
  for (const page of ['mutate.html', 'report.html', 'drift.html']) {
    const html = readFileSync(join(dir, page), 'utf8');
    expect(html.match(CONTROL), page).toBeNull();
    expect(html.match(ESCAPED)?.length ?? 0, page).toBeGreaterThanOrEqual(5);
  }
}, 120_000);
