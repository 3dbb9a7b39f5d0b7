import { describe, expect, test } from 'vitest';
import type { DriftRequest } from './drift-report.js';
import { renderDriftHtml } from './render-drift-html.js';
import { viewOf } from './view-of.js';

function request(path: string, upstream: string, json: unknown): DriftRequest {
  return { method: 'POST', path, upstream, query: [], headers: { 'content-type': 'application/json' }, body: { json } };
}

const messages = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };

describe('viewOf reads which wire API a body is in from its route', () => {
  test('the route decides over the upstream name: Anthropic’s OpenAI-compatible chat path reads as chat', () => {
    expect(viewOf(request('/v1/chat/completions', 'anthropic', messages)).format).toBe('OpenAI Chat Completions');
    expect(viewOf(request('/v1/messages', 'openai', { ...messages, max_tokens: 5 })).format).toBe('Anthropic Messages');
    expect(viewOf(request('/anthropic/v1/messages', 'local', messages)).format).toBe('Anthropic Messages');
    expect(viewOf(request('/v1/responses', 'openai', { model: 'm', input: 'Hi' })).format).toBe('OpenAI Responses');
  });

  test('an Azure OpenAI exchange reads as the OpenAI API its path names, and the page says it is Azure’s', () => {
    const chat = viewOf(request('/openai/deployments/gpt-4o-dev/chat/completions', 'azure', messages));
    expect(chat.format).toBe('Azure OpenAI Chat Completions');
    expect(chat.entries).toHaveLength(1);
    expect(viewOf(request('/openai/responses', 'azure', { model: 'm', input: 'Hi' })).format).toBe('Azure OpenAI Responses');
  });

  test('a Vertex AI exchange reads as the Gemini or Anthropic API its path names, and the page says it is Vertex’s', () => {
    const gemini = viewOf(
      request('/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent', 'vertex', {
        contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      }),
    );
    expect(gemini.format).toBe('Vertex AI Gemini generateContent');
    expect(gemini.entries).toHaveLength(1);
    const claude = viewOf(
      request('/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict', 'vertex', {
        anthropic_version: 'vertex-2023-10-16',
        messages: messages.messages,
      }),
    );
    expect(claude.format).toBe('Vertex AI Anthropic Messages');
    expect(claude.entries).toHaveLength(1);
  });

  test('a path no provider has falls back to the body’s shape', () => {
    expect(viewOf(request('/custom/generate', 'local', messages)).format).toBe('OpenAI Chat Completions');
    expect(viewOf(request('/custom/generate', 'my-anthropic', messages)).format).toBe('Anthropic Messages');
    expect(viewOf(request('/custom/generate', 'local', { model: 'm', input: 'Hi', instructions: 'Be brief.' })).format).toBe('OpenAI Responses');
    expect(viewOf(request('/custom/generate', 'local', { model: 'm', input: 'Hi' })).format).toBe('JSON');
  });

  test('a route whose body does not fit it is shown as fields, not read as a conversation', () => {
    const view = viewOf(request('/v1/responses', 'openai', { model: 'm', input: 7 }));
    expect(view.format).toBe('JSON');
    expect(view.fields.map((field) => field.name)).toEqual(['model', 'input']);
  });
});

/** Each entry as `label: part, part…`, a part as its caption (or kind) and the path it shows. */
function outline(view: ReturnType<typeof viewOf>): string[] {
  return view.entries.map(
    (entry) =>
      `${entry.label}: ${entry.parts.map((part) => (part.kind === 'text' ? `${part.label ?? 'text'} ${part.leaf.path}` : part.kind === 'block' ? `${part.label} ${part.leaf.path}` : `${part.kind} ${part.path}`)).join(', ')}`,
  );
}

const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('viewOf draws Gemini and Ollama conversations from the providers’ readers', () => {
  test('a Gemini request shows its image, its file and its thought as thinking, not as text', () => {
    const view = viewOf(
      request('/v1beta/models/gemini-2.5-flash:generateContent', 'gemini', {
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        contents: [
          {
            role: 'user',
            parts: [
              { text: 'What is this?' },
              { inlineData: { mimeType: 'image/png', data: png } },
              { fileData: { mimeType: 'application/pdf', fileUri: 'gs://b/a.pdf' } },
            ],
          },
          { role: 'model', parts: [{ text: 'A one-pixel image.', thought: true }, { text: 'A dot.' }, { functionCall: { name: 'look', args: { x: 1 } } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'look', response: { result: 'a dot' } } }] },
        ],
        tools: [{ functionDeclarations: [{ name: 'look', description: 'Look closer' }] }, { googleSearch: {} }],
        generationConfig: { temperature: 0 },
      }),
    );
    expect(view.format).toBe('Gemini generateContent');
    expect(outline(view)).toEqual([
      'systemInstruction: text .systemInstruction.parts[0].text',
      'user: text .contents[0].parts[0].text, image .contents[0].parts[1].inlineData, file .contents[0].parts[2].fileData',
      'model: thinking .contents[1].parts[0].text, text .contents[1].parts[1].text, call .contents[1].parts[2]',
      'user · tool result: result .contents[2].parts[0]',
    ]);
    expect(view.tools.map((tool) => [tool.path, tool.name])).toEqual([
      ['.tools[0].functionDeclarations[0]', 'look'],
      ['.tools[1]', 'googleSearch'],
    ]);
    expect(view.fields.map((field) => field.name)).toEqual(['generationConfig']);
  });

  test('an Ollama chat request shows its images and thinking, and the page draws them', () => {
    const body = {
      model: 'llava',
      messages: [
        { role: 'user', content: 'What is this?', images: [png] },
        { role: 'assistant', content: 'A dot.', thinking: 'It is one pixel.' },
      ],
      think: true,
    };
    const view = viewOf(request('/api/chat', 'ollama', body));
    expect(view.format).toBe('Ollama chat');
    expect(outline(view)).toEqual([
      'user: text .messages[0].content, image .messages[0].images[0]',
      'assistant: thinking .messages[1].thinking, text .messages[1].content',
    ]);
    const html = renderDriftHtml({
      tape: 'tapes/t.jsonl',
      command: [],
      totals: { requests: 1, hits: 0, drifted: 1 },
      endpoints: [],
      drifts: [
        {
          index: 0,
          endpoint: 'POST /api/chat (ollama)',
          reason: 'unrecorded',
          key: 'k',
          sent: request('/api/chat', 'ollama', body),
          nearest: undefined,
          differences: [],
          totalDifferences: 0,
          message: 'm',
        },
      ],
    });
    expect(html).toContain('<div class="card block" data-path=".messages[0].images[0]"><div class="caption">image</div>');
    expect(html).toContain('<div class="text"><div class="caption">thinking</div>It is one pixel.</div>');
  });

  test('an Ollama generate request shows its system, its prompt and the prompt’s images', () => {
    const view = viewOf(request('/api/generate', 'ollama', { model: 'llava', system: 'Be brief.', prompt: 'What is this?', images: [png], stream: false }));
    expect(view.format).toBe('Ollama generate');
    expect(outline(view)).toEqual(['system: text .system', 'user: text .prompt, image .images[0]']);
    expect(view.fields.map((field) => field.name)).toEqual(['model', 'stream']);
  });
});

describe('viewOf draws what the old page showed as blocks by what it is', () => {
  test('a Responses reasoning item is the assistant thinking; a file is a file', () => {
    const view = viewOf(
      request('/v1/responses', 'openai', {
        model: 'gpt-5',
        input: [
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look it up.' }], encrypted_content: 'fake-encrypted' },
          { role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] },
        ],
      }),
    );
    expect(outline(view)).toEqual([
      'assistant · reasoning: thinking .input[0].summary[0].text, redacted thinking .input[0].encrypted_content',
      'user: file .input[1].content[0].file_id',
    ]);
  });
});

describe('viewOf draws Bedrock conversations from the providers’ readers', () => {
  const converse = {
    system: [{ text: 'Be brief.' }],
    messages: [
      { role: 'user', content: [{ text: 'List the files.' }, { image: { format: 'png', source: { bytes: png } } }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'bash', input: { command: 'ls' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'a.txt' }] } }] },
    ],
    toolConfig: { tools: [{ toolSpec: { name: 'bash', description: 'Runs a command.', inputSchema: { json: { type: 'object' } } } }] },
    inferenceConfig: { maxTokens: 100 },
  };

  test('a Converse miss shows its system, its image, its tool call and result, and its toolConfig tools', () => {
    const view = viewOf(request('/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse', 'bedrock', converse));
    expect(view.format).toBe('Bedrock Converse');
    expect(outline(view)).toEqual([
      'system: text .system[0].text',
      'user: text .messages[0].content[0].text, image .messages[0].content[1].image.source',
      'assistant: call .messages[1].content[0]',
      'user · tool result: result .messages[2].content[0]',
    ]);
    expect(view.tools.map((tool) => [tool.path, tool.name, tool.description])).toEqual([['.toolConfig.tools[0]', 'bash', 'Runs a command.']]);
    expect(view.fields.map((field) => field.name)).toEqual(['inferenceConfig']);
    const html = renderDriftHtml({
      tape: 'tapes/t.jsonl',
      command: [],
      totals: { requests: 1, hits: 0, drifted: 1 },
      endpoints: [],
      drifts: [
        {
          index: 0,
          endpoint: 'POST /model/{modelId}/converse (bedrock)',
          reason: 'unrecorded',
          key: 'k',
          sent: request('/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse', 'bedrock', converse),
          nearest: undefined,
          differences: [],
          totalDifferences: 0,
          message: 'm',
        },
      ],
    });
    expect(html).toContain('<div class="card block" data-path=".messages[0].content[1]"><div class="caption">image</div>');
    expect(html).toContain('List the files.');
    expect(html).toContain('a.txt');
  });

  test('an InvokeModel miss shows the conversation of the model’s own body: Claude’s Messages, Nova’s Converse shape', () => {
    const claude = viewOf(
      request('/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke', 'bedrock', {
        anthropic_version: 'bedrock-2023-05-31',
        max_tokens: 100,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      }),
    );
    expect([claude.format, outline(claude)]).toEqual(['Bedrock InvokeModel', ['user: text .messages[0].content[0].text']]);
    const nova = viewOf(request('/model/amazon.nova-lite-v1%3A0/invoke', 'bedrock', { messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }));
    expect([nova.format, outline(nova)]).toEqual(['Bedrock InvokeModel', ['user: text .messages[0].content[0].text']]);
  });
});
