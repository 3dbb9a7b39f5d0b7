import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { runCli, runMain } from '../support/cli.js';
import { fakeAnthropicKey, fakeOpenAiKey } from '../support/fake-keys.js';
import { sample, sseFrames, startStandInUpstream, type ReceivedRequest, type StandInReply } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// A stream that ended in the provider's error event is a recorded failure: the report's own
// "never seen" list asks for one, and recording it must not make every budget fail as if it were
// an answer whose usage went unrecorded.

// What the stand-in providers answered: a plain chat answer with usage, and three streams that
// end in the provider's error event, as each provider sends it under HTTP 200.
function reply(request: ReceivedRequest): StandInReply {
  const path = request.url.split('?')[0]!;
  if (path === '/v1/responses') {
    // The real capture: response.created, response.in_progress, error, response.failed (usage null).
    const events = sample('openai/responses-stream-error.data.jsonl').toString('utf8').trim().split('\n');
    return { frames: events.map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`) };
  }
  if (path === '/v1/messages') {
    // Anthropic's mid-stream error after the message began (its usage so far in message_start).
    const begun = sseFrames('anthropic/stream-text.sse').slice(0, 4);
    return { frames: [...begun, 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'] };
  }
  const body = JSON.parse(request.body) as { stream?: boolean };
  if (body.stream === true) {
    // A chat stream with include_usage that ends in an error chunk before its usage chunk.
    const first = sseFrames('openai/chat-stream-text.sse').slice(0, 2);
    return {
      frames: [
        ...first,
        'data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}\n\n',
      ],
    };
  }
  return { headers: { 'content-type': 'application/json' }, body: sample('openai/chat-completion.json') };
}

const CLIENT = `
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
const openai = new OpenAI({ maxRetries: 0 });
const failed = [];
const drain = async (stream) => { try { for await (const _event of await stream); } catch (error) { failed.push(error.constructor.name); } };
await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
await drain(openai.responses.create({ model: 'gpt-5-nano', input: 'Hi', stream: true }));
await drain(new Anthropic({ maxRetries: 0 }).messages.create({ model: 'claude-opus-4-1', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], stream: true }));
await drain(openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } }));
console.log(JSON.stringify(failed));
`;

describe('modeltape report on a stream that ended in the provider error event', () => {
  const dir = tempDir({ scope: 'file', inProject: true });
  const tape = join(dir, 'failures.jsonl');

  beforeAll(async () => {
    writeFileSync(join(dir, 'client.mjs'), CLIENT);
    const upstream = await startStandInUpstream(reply);
    try {
      const recorded = await runCli(
        [
          'run',
          '--tape',
          tape,
          '--mode',
          'record',
          '--upstream',
          `openai=${upstream.url}`,
          '--upstream',
          `anthropic=${upstream.url}`,
          '--',
          process.execPath,
          'client.mjs',
        ],
        { cwd: dir, env: { OPENAI_API_KEY: fakeOpenAiKey(), ANTHROPIC_API_KEY: fakeAnthropicKey() } },
      );
      expect(recorded.code, recorded.stderr).toBe(0);
      // Each SDK raised the provider's error: these are failures the code under test must handle.
      expect(JSON.parse(recorded.stdout.trim().split('\n').at(-1)!)).toHaveLength(3);
    } finally {
      await upstream.close();
    }
  }, 120_000);

  test('counts it as a recorded failure, not an unmetered answer: the budgets hold', async () => {
    const budgeted = await runMain(['report', tape, '--max-tokens', '100000', '--max-cost', '1'], { cwd: dir });
    expect(budgeted.stdout).not.toContain('recorded no token usage');
    expect(budgeted.code, budgeted.stdout).toBe(0);
    expect(budgeted.stdout).toContain("Recorded failures: 3 model turns ended in the provider's error event (see stream-error)");

    const report = JSON.parse((await runMain(['report', tape, '--json'], { cwd: dir })).stdout);
    expect(report.totals).toMatchObject({ exchanges: 4, unmetered: 0, recordedFailures: 3 });
    // The usage the failures reported is counted: the chat answer's, and Anthropic's message_start.
    const chat = JSON.parse(sample('openai/chat-completion.json').toString('utf8')) as { usage: { total_tokens: number } };
    expect(report.totals.tokens.total).toBe(chat.usage.total_tokens + 11 + 1);
    expect(report.failures).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  test('shows it in coverage as stream-error, where it is, and not as a streamed answer', async () => {
    const report = JSON.parse((await runMain(['report', tape, '--json'], { cwd: dir })).stdout);
    const behaviour = (name: string) => report.coverage.behaviours.find((entry: { name: string }) => entry.name === name);
    expect(behaviour('stream-error')).toMatchObject({ count: 3, where: ['failures.jsonl:3', 'failures.jsonl:4', 'failures.jsonl:5'] });
    expect(behaviour('not-streamed')).toMatchObject({ count: 1, where: ['failures.jsonl:2'] });
    expect(behaviour('streamed').count).toBe(0);
    expect(report.coverage.neverSeen).toContain('streamed');
    expect(report.coverage.neverSeen).not.toContain('stream-error');
  });
});
