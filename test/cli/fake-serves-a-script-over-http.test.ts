import { writeFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { GoogleGenAI } from '@google/genai';
import { Ollama } from 'ollama';
import OpenAI, { AzureOpenAI } from 'openai';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { placeholderGoogleCredentials } from 'modeltape/replay';
import { runMain, startMain } from '../support/cli.js';
import { sdkSession } from '../support/realtime-client.js';
import { closeAfterEach } from '../support/close-after-each.js';
import { tempDir } from '../support/temp-dir.js';

describe('modeltape fake', () => {
  const dir = tempDir();
  const running = closeAfterEach();

  test('prints its address first, serves a script file, and reports on SIGTERM', async () => {
    const script = `${dir}/script.jsonl`;
    writeFileSync(
      script,
      [
        '{"schemaVersion":1,"kind":"modeltape-fake-script","_note":"a test script"}',
        '{"callTools":[{"name":"get_weather","arguments":{"city":"Paris"},"id":"call_1"}],"say":"Checking."}',
        '{"say":"It rains.","chunks":{"size":3}}',
        '{"when":{"prompt":"*ping*"},"always":true,"say":"pong","_note":"a rule"}',
      ].join('\n'),
    );
    const fake = running(await startMain(['fake', '--script', script]));
    expect(fake.firstLine).toMatch(/^modeltape fake listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = fake.firstLine.slice('modeltape fake listening on '.length);
    const client = new OpenAI({ apiKey: 'fake-key', baseURL: `${url}/v1`, maxRetries: 0 });
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    expect((await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'ping' }] })).choices[0]!.message.content).toBe('pong');
    const first = await client.chat.completions.create({ model: 'gpt-4o', tools, messages: [{ role: 'user', content: 'weather?' }] });
    expect(first.choices[0]!.message).toMatchObject({
      content: 'Checking.',
      tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
    });
    const second = await client.chat.completions.create({
      model: 'gpt-4o',
      tools,
      messages: [{ role: 'user', content: 'weather?' }, first.choices[0]!.message, { role: 'tool', tool_call_id: 'call_1', content: 'rain' }],
    });
    expect(second.choices[0]!.message.content).toBe('It rains.');
    const result = await fake.stop('SIGTERM');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('modeltape fake: 3 calls, 3 model turns, 0 problems');
  });

  test('a script file answers an OpenAI Realtime session at OPENAI_BASE_URL, as it answers HTTP turns', async () => {
    const script = `${dir}/realtime.jsonl`;
    writeFileSync(script, ['{"schemaVersion":1,"kind":"modeltape-fake-script"}', '{"say":"Hello by WebSocket."}'].join('\n'));
    const fake = running(await startMain(['fake', '--script', script]));
    const openaiBaseUrl = fake
      .output()
      .stdout.split('\n')
      .find((line) => line.startsWith('OPENAI_BASE_URL='))!
      .slice('OPENAI_BASE_URL='.length);
    const session = await sdkSession(openaiBaseUrl);
    try {
      session.realtime.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } });
      const done = session.next('response.done');
      session.realtime.send({ type: 'response.create' });
      const output = ((await done).response as { output: Array<{ content: Array<{ text: string }> }> }).output;
      expect(output[0]!.content[0]!.text).toBe('Hello by WebSocket.');
    } finally {
      await session.close();
    }
    const result = await fake.stop('SIGTERM');
    expect(result.code).toBe(0);
    // The upgrade and the two client events are its calls; the response.create its one model turn.
    expect(result.stdout).toContain('modeltape fake: 3 calls, 1 model turns, 0 problems');
  });

  test('with no script it is unscripted', async () => {
    const fake = running(await startMain(['fake']));
    const url = fake.firstLine.slice('modeltape fake listening on '.length);
    const client = new OpenAI({ apiKey: 'fake-key', baseURL: `${url}/openai/v1`, maxRetries: 0 });
    expect((await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })).choices[0]!.message.content).toMatch(
      /fake answer/,
    );
    expect((await fake.stop('SIGINT')).code).toBe(0);
  });

  test('prints a base URL variable for each client, and each client reaches the fake by it', async () => {
    const fake = running(await startMain(['fake']));
    const lines = fake.output().stdout.split('\n');
    const variables = Object.fromEntries(lines.filter((line) => /^[A-Z_]+=/.test(line)).map((line) => line.split('=', 2) as [string, string]));
    expect(Object.keys(variables)).toEqual([
      'OPENAI_BASE_URL',
      'ANTHROPIC_BASE_URL',
      'GOOGLE_GEMINI_BASE_URL',
      'OLLAMA_HOST',
      'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
      'AZURE_OPENAI_ENDPOINT',
      'GOOGLE_VERTEX_BASE_URL',
    ]);
    const bedrock = new BedrockRuntimeClient({
      endpoint: variables.AWS_ENDPOINT_URL_BEDROCK_RUNTIME,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDFAKEFAKEFAKEFAKE', secretAccessKey: 'fake-secret' },
      // The SDK's own handler: HTTP/2 with prior knowledge, which the fake's port takes as it takes HTTP/1.1.
      maxAttempts: 1,
    });
    const vertex = new GoogleGenAI({
      vertexai: true,
      project: 'fake-project',
      location: 'us-central1',
      httpOptions: { baseUrl: variables.GOOGLE_VERTEX_BASE_URL },
      googleAuthOptions: { credentials: placeholderGoogleCredentials(variables.GOOGLE_VERTEX_BASE_URL!) },
    });
    const answers = [
      (
        await new OpenAI({ apiKey: 'fake-key', baseURL: variables.OPENAI_BASE_URL, maxRetries: 0 }).chat.completions.create({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'hi' }],
        })
      ).choices[0]!.message.content,
      (
        (
          await new Anthropic({ apiKey: 'fake-key', baseURL: variables.ANTHROPIC_BASE_URL, maxRetries: 0 }).messages.create({
            model: 'claude-opus-4-8',
            max_tokens: 20,
            messages: [{ role: 'user', content: 'hi' }],
          })
        ).content[0] as { text: string }
      ).text,
      (
        await new GoogleGenAI({ apiKey: 'fake-key', httpOptions: { baseUrl: variables.GOOGLE_GEMINI_BASE_URL } }).models.generateContent({
          model: 'gemini-2.5-flash',
          contents: 'hi',
        })
      ).text,
      (await new Ollama({ host: variables.OLLAMA_HOST }).chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] })).message.content,
      (await bedrock.send(new ConverseCommand({ modelId: 'amazon.nova-lite-v1:0', messages: [{ role: 'user', content: [{ text: 'hi' }] }] }))).output?.message
        ?.content?.[0]?.text,
      (
        await new AzureOpenAI({
          endpoint: variables.AZURE_OPENAI_ENDPOINT,
          apiKey: 'fake-key',
          apiVersion: '2024-10-21',
          deployment: 'gpt-4o',
          maxRetries: 0,
        }).chat.completions.create({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'hi' }],
        })
      ).choices[0]!.message.content,
      (await vertex.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })).text,
    ];
    expect(answers).toHaveLength(7);
    for (const answer of answers) expect(answer).toMatch(/fake answer/);
    const result = await fake.stop('SIGTERM');
    expect(result.stdout).toContain('modeltape fake: 7 calls, 7 model turns, 0 problems');
  });

  test('a script file with an unknown field fails with file:line, the field and the nearest known one', async () => {
    const script = `${dir}/bad.jsonl`;
    writeFileSync(script, '{"say":"ok"}\n{"sya":"typo"}\n{"say":"a","answer":1}\n');
    const result = await runMain(['fake', '--script', script]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Invalid FakeProvider script: 2 problems.');
    expect(result.stderr).toContain(`${script}:2: unknown field ".sya" in script step; did you mean ".say"?`);
    expect(result.stderr).toContain(`${script}:3: a step holds exactly one of "say", "callTools", "answer", "fail"`);
    expect(() => FakeProvider.fromScript(script)).toThrow(/:2: unknown field/);
  });
});
