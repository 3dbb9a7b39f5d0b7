import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import type { ReceivedRequest, StandInReply } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// modeltape mutate on two more wire shapes: an Anthropic Messages stream with a tool call (the
// official @anthropic-ai/sdk), and OpenAI structured output (response_format json_schema), whose
// fields a suite may or may not check.

function sse(event: string, data: Record<string, unknown>): string {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}

function reply(request: ReceivedRequest): StandInReply {
  if (request.url.includes('/messages')) {
    return {
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'request-id': 'req_fake_mutate' },
      frames: [
        sse('message_start', {
          message: {
            id: 'msg_fake_1',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 20, output_tokens: 1 },
          },
        }),
        sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
        sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Checking the weather.' } }),
        sse('content_block_stop', { index: 0 }),
        sse('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_fake_1', name: 'get_weather', input: {} } }),
        sse('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"city": "Oslo"}' } }),
        sse('content_block_stop', { index: 1 }),
        sse('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 12 } }),
        sse('message_stop', {}),
      ],
    };
  }
  return {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: 'chatcmpl-structured',
      object: 'chat.completion',
      created: 1770000000,
      model: 'gpt-4.1-mini',
      choices: [
        { index: 0, message: { role: 'assistant', content: '{"city":"Oslo","celsius":4,"rain":true}', refusal: null }, finish_reason: 'stop', logprobs: null },
      ],
      usage: { prompt_tokens: 30, completion_tokens: 11, total_tokens: 41 },
    }),
  };
}

const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' }, rain: { type: 'boolean' } },
  required: ['city', 'celsius', 'rain'],
  additionalProperties: false,
};

const APP = `import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
export async function run() {
  const anthropic = new Anthropic({ apiKey: 'sk-ant-fake-mutate', maxRetries: 0 });
  const message = await anthropic.messages.stream({
    model: 'claude-sonnet-4-5', max_tokens: 256,
    tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }, { name: 'get_time', input_schema: { type: 'object', properties: {} } }],
    messages: [{ role: 'user', content: 'Weather in Oslo?' }],
  }).finalMessage();
  const openai = new OpenAI({ apiKey: 'sk-fake-mutate', maxRetries: 0 });
  const completion = await openai.chat.completions.create({
    model: 'gpt-4.1-mini',
    messages: [{ role: 'user', content: 'Report Oslo' }],
    response_format: { type: 'json_schema', json_schema: { name: 'report', strict: true, schema: ${JSON.stringify(SCHEMA)} } },
  });
  const tool = message.content.find((block) => block.type === 'tool_use');
  return { stop: message.stop_reason, tool: tool && { name: tool.name, input: tool.input }, report: JSON.parse(completion.choices[0].message.content) };
}
`;

describe('modeltape mutate on Anthropic streams and structured output', () => {
  const dir = tempDir({ inProject: true, scope: 'file' });
  const tape = `${dir}/suite.jsonl`;
  writeFileSync(`${dir}/app.mjs`, APP);
  // Checks the tool call and that the report parsed, not its fields.
  writeFileSync(
    `${dir}/weak.mjs`,
    `import assert from 'node:assert/strict';
import { run } from './app.mjs';
const got = await run();
assert.equal(got.stop, 'tool_use');
assert.deepEqual(got.tool, { name: 'get_weather', input: { city: 'Oslo' } });
assert.equal(typeof got.report, 'object');
`,
  );
  // Also checks the report against its schema.
  writeFileSync(
    `${dir}/strong.mjs`,
    `import assert from 'node:assert/strict';
import { run } from './app.mjs';
const got = await run();
assert.equal(got.stop, 'tool_use');
assert.deepEqual(got.tool, { name: 'get_weather', input: { city: 'Oslo' } });
assert.deepEqual(got.report, { city: 'Oslo', celsius: 4, rain: true });
`,
  );

  beforeAll(async () => {
    await recordTape(
      tape,
      async ({ openai, anthropic }) => {
        const app = (await import(pathToFileURL(`${dir}/app.mjs`).href)) as { run: () => Promise<unknown> };
        const saved = { openai: process.env.OPENAI_BASE_URL, anthropic: process.env.ANTHROPIC_BASE_URL };
        process.env.OPENAI_BASE_URL = openai;
        process.env.ANTHROPIC_BASE_URL = anthropic;
        try {
          expect(await app.run()).toEqual({
            stop: 'tool_use',
            tool: { name: 'get_weather', input: { city: 'Oslo' } },
            report: { city: 'Oslo', celsius: 4, rain: true },
          });
        } finally {
          process.env.OPENAI_BASE_URL = saved.openai;
          process.env.ANTHROPIC_BASE_URL = saved.anthropic;
          if (saved.openai === undefined) delete process.env.OPENAI_BASE_URL;
          if (saved.anthropic === undefined) delete process.env.ANTHROPIC_BASE_URL;
        }
      },
      { reply },
    );
  }, 30_000);

  const mutate = async (suite: string) => {
    const result = await runMain(
      [
        'mutate',
        '--tape',
        tape,
        '--jobs',
        '2',
        '--json',
        '--operators',
        'field-removed,field-retyped,tool-argument-changed,tool-renamed,stream-truncated,overloaded,text-negated',
        '--',
        process.execPath,
        `${dir}/${suite}`,
      ],
      { cwd: dir },
    );
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as {
      score: number;
      mutants: Array<{ line: number; operator: string; variant: string; outcome: string; before: string; after: string }>;
    };
  };

  test("the structured answer's fields survive a suite that only parses it, and die in one that checks them; the stream's tool call dies in both", async () => {
    const weak = await mutate('weak.mjs');
    const strong = await mutate('strong.mjs');
    const outcome = (report: typeof weak, line: number, operator: string, variant = '') =>
      report.mutants.find((mutant) => mutant.line === line && mutant.operator === operator && mutant.variant === variant)?.outcome;
    // Line 2: the Anthropic stream; line 3: the structured answer.
    for (const field of ['.city', '.celsius', '.rain']) {
      expect(outcome(weak, 3, 'field-removed', field), field).toBe('survived');
      expect(outcome(strong, 3, 'field-removed', field), field).toBe('killed');
      expect(outcome(strong, 3, 'field-retyped', field), field).toBe('killed');
    }
    for (const report of [weak, strong]) {
      expect(outcome(report, 2, 'tool-argument-changed', 'call 1')).toBe('killed');
      expect(outcome(report, 2, 'tool-renamed', 'call 1')).toBe('killed');
      expect(outcome(report, 2, 'stream-truncated')).toBe('killed');
      expect(outcome(report, 2, 'overloaded')).toBe('killed');
    }
    // The text before the call is read by neither suite.
    expect(outcome(strong, 2, 'text-negated')).toBe('survived');
    const removed = weak.mutants.find((mutant) => mutant.operator === 'field-removed' && mutant.variant === '.celsius')!;
    expect(JSON.parse(removed.before)).toEqual({ city: 'Oslo', celsius: 4, rain: true });
    expect(JSON.parse(removed.after)).toEqual({ city: 'Oslo', rain: true });
    expect(strong.score).toBeGreaterThan(weak.score);
  }, 120_000);
});
