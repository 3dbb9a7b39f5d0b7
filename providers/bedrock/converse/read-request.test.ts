import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { readTurn } from '../../read-turn.js';
import { readToolChoice } from '../../turn.js';
import { readConverseRequest } from './read-request.js';

// The assistant turn sent back is a real captured Converse answer's message: a toolUse block.
const answer = JSON.parse(readFileSync(new URL('../../../test/fixtures/bedrock/converse-tool-use-response.json', import.meta.url), 'utf8')) as {
  output: { message: Record<string, unknown> };
};

const route = { api: 'bedrock-converse', provider: 'bedrock', model: 'anthropic.claude-3-5-haiku-20241022-v1:0', stream: false } as const;

const loop = {
  system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }],
  messages: [
    {
      role: 'user',
      content: [
        { text: 'List the files.' },
        { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } },
        { document: { format: 'pdf', name: 'notes', source: { s3Location: { uri: 's3://bucket/notes.pdf' } } } },
      ],
    },
    {
      role: 'assistant',
      content: [{ reasoningContent: { reasoningText: { text: 'I should run ls.', signature: 'sig' } } }, ...(answer.output.message.content as unknown[])],
    },
    { role: 'user', content: [{ toolResult: { toolUseId: 'tool-use-id', content: [{ text: 'a.txt' }, { json: { more: 1 } }], status: 'success' } }] },
  ],
  toolConfig: {
    tools: [
      { toolSpec: { name: 'bash', description: 'Runs a command.', inputSchema: { json: { type: 'object', properties: { command: { type: 'string' } } } } } },
    ],
    toolChoice: { auto: {} },
  },
  inferenceConfig: { maxTokens: 256, temperature: 0.2 },
};

describe('readConverseRequest reads a Converse body into the turn it shows the model', () => {
  test('every content block is a typed part at its JSON path; a toolUse is a call, a toolResult a tool message', () => {
    const turn = readConverseRequest(loop, 3, route);
    expect(turn.items.map((item) => [item.path, item.role, item.parts.map((part) => `${part.kind} ${part.path}`)])).toEqual([
      ['.system', 'system', ['text .system[0].text', 'unknown .system[1]']],
      ['.messages[0]', 'user', ['text .messages[0].content[0].text', 'image .messages[0].content[1]', 'file .messages[0].content[2]']],
      ['.messages[1]', 'assistant', ['thinking .messages[1].content[0].reasoningContent.reasoningText.text', 'tool-call .messages[1].content[1]']],
      ['.messages[2]', 'user', ['tool-result .messages[2].content[0]']],
    ]);
    expect(turn.items[1]!.parts.slice(1)).toEqual([
      {
        kind: 'image',
        path: '.messages[0].content[1]',
        type: 'image',
        source: { path: '.messages[0].content[1].image.source', value: { bytes: 'iVBORw0KGgo=' } },
        mediaType: 'image/png',
        bytes: 8,
      },
      {
        kind: 'file',
        path: '.messages[0].content[2]',
        type: 'document',
        source: { path: '.messages[0].content[2].document.source', value: { s3Location: { uri: 's3://bucket/notes.pdf' } } },
        url: 's3://bucket/notes.pdf',
        mediaType: 'application/pdf',
      },
    ]);
    expect(turn).toMatchObject({
      index: 3,
      provider: 'bedrock',
      api: 'bedrock-converse',
      model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
      stream: false,
      system: 'Be brief.',
      toolChoice: { auto: {} },
      tools: [{ name: 'bash', description: 'Runs a command.', parameters: { type: 'object', properties: { command: { type: 'string' } } }, strict: false }],
      exchanges: [{ toolCallId: 'tool-use-id', name: 'bash', result: 'a.txt{"more":1}', isError: false }],
    });
    expect(turn.messages.map((message) => [message.role, message.text, message.toolCalls, message.toolCallId])).toEqual([
      ['user', 'List the files.', undefined, undefined],
      ['assistant', '', [{ id: 'tool-use-id', name: 'bash', arguments: { command: 'ls -l' } }], undefined],
      ['tool', 'a.txt{"more":1}', undefined, 'tool-use-id'],
    ]);
    expect(turn.prompt).toBe('system: Be brief.\nuser: List the files.\nassistant: [bash({"command":"ls -l"})]\ntool: a.txt{"more":1}');
  });

  test('the model and the stream come from the path; a failed tool result is an error', () => {
    const body = {
      messages: [
        { role: 'user', content: [{ text: 'Run it.' }] },
        { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'bash', input: {} } }] },
        { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'denied' }], status: 'error' } }] },
      ],
      toolConfig: { tools: [{ toolSpec: { name: 'bash', inputSchema: { json: { type: 'object' } } } }] },
    };
    const turn = readTurn('/model/us.amazon.nova-lite-v1%3A0/converse-stream', body)!;
    expect([turn.api, turn.model, turn.stream]).toEqual(['bedrock-converse', 'us.amazon.nova-lite-v1:0', true]);
    expect(turn.exchanges).toEqual([{ toolCallId: 't1', name: 'bash', result: 'denied', isError: true }]);
    expect(turn.items[2]!.parts[0]).toMatchObject({
      kind: 'tool-result',
      toolCallId: 't1',
      idPath: '.messages[2].content[0].toolResult.toolUseId',
      isError: true,
    });
  });

  test('outputConfig.textFormat is the response schema, sent as a JSON string', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const turn = readConverseRequest(
      {
        messages: [{ role: 'user', content: [{ text: 'Where?' }] }],
        outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'place' } } } },
      },
      0,
      route,
    );
    expect(turn.responseSchema).toEqual({ source: 'outputConfig.textFormat', name: 'place', schema, strict: true });
  });

  test('toolConfig.toolChoice reads as any other tool choice', () => {
    expect(readToolChoice({ auto: {} })).toEqual({ mode: 'auto' });
    expect(readToolChoice({ any: {} })).toEqual({ mode: 'required' });
    expect(readToolChoice({ tool: { name: 'bash' } })).toEqual({ mode: 'required', name: 'bash' });
  });
});

describe('an InvokeModel body is read by the format of the model it names', () => {
  test('an Anthropic Messages body (anthropic_version) is read by the Messages reader, as Bedrock’s', () => {
    const turn = readTurn('/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke-with-response-stream', {
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    })!;
    expect([turn.provider, turn.api, turn.model, turn.stream, turn.prompt]).toEqual([
      'bedrock',
      'bedrock-invoke',
      'anthropic.claude-3-5-haiku-20241022-v1:0',
      true,
      'system: Be brief.\nuser: Hi',
    ]);
    expect(turn.items.map((item) => item.path)).toEqual(['.system', '.messages[0]']);
  });

  test('an Amazon Nova body is read by the Converse reader; a Titan body is no turn', () => {
    const nova = readTurn('/model/amazon.nova-lite-v1%3A0/invoke', {
      schemaVersion: 'messages-v1',
      system: [{ text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
      inferenceConfig: { max_new_tokens: 100 },
    })!;
    expect([nova.provider, nova.api, nova.model, nova.stream, nova.prompt]).toEqual([
      'bedrock',
      'bedrock-invoke',
      'amazon.nova-lite-v1:0',
      false,
      'system: Be brief.\nuser: Hi',
    ]);
    expect(readTurn('/model/amazon.titan-text-express-v1/invoke', { inputText: 'Hi' })).toBeUndefined();
  });
});
