// Proves test/support/spec-validator.ts checks values against the providers' real OpenAPI specs:
// real captured samples pass (or fail for the documented reasons only), tampered values fail, and
// the minimal shapes a fake provider must emit are spec-valid, with every key shown required
// unless listed as optional.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  adaptOpenApiComponents,
  adaptOpenApiSchema,
  assertMatchesSpec,
  specSchemaNames,
  specSource,
  validateAgainstSpec,
  type SpecProvider,
} from './spec-validator.js';

const SAMPLES = new URL('../fixtures/samples/', import.meta.url);

function sampleText(path: string): string {
  return readFileSync(new URL(path, SAMPLES), 'utf8');
}

function sampleJson(path: string): unknown {
  return JSON.parse(sampleText(path));
}

interface SseEvent {
  event: string | undefined;
  data: string;
}

/** SSE events of a captured sample: `event:` value (if any) and the joined `data:` lines. */
function sseEvents(path: string): SseEvent[] {
  return sampleText(path)
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        const m = /^([a-z]+):\s?(.*)$/.exec(line);
        if (!m) continue;
        if (m[1] === 'event') event = m[2];
        else if (m[1] === 'data') data.push(m[2]!);
      }
      return { event, data: data.join('\n') };
    });
}

function jsonLines(path: string): Record<string, unknown>[] {
  return sampleText(path)
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

type Json = Record<string, unknown>;

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Every key path (JSON-pointer style) of the objects inside `value`; array items are walked. */
function keyPaths(value: unknown, base = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => keyPaths(item, `${base}/${i}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) => [`${base}/${key}`, ...keyPaths(v, `${base}/${key}`)]);
}

function without(value: unknown, path: string): unknown {
  const copy = clone(value) as Json;
  const parts = path.split('/').slice(1);
  let node: unknown = copy;
  for (const part of parts.slice(0, -1)) node = (node as Json)[part];
  delete (node as Json)[parts.at(-1)!];
  return copy;
}

/**
 * `value` is valid for `schemaName`, and it is minimal: removing any key makes it invalid, except
 * the keys listed in `optional` (which must stay valid when removed, so the list is exact).
 */
function expectMinimal(provider: SpecProvider, schemaName: string, value: unknown, optional: string[] = []): void {
  assertMatchesSpec(provider, schemaName, value);
  const stillValid: string[] = [];
  const wronglyOptional: string[] = [];
  for (const path of keyPaths(value)) {
    const valid = validateAgainstSpec(provider, schemaName, without(value, path)).valid;
    if (optional.includes(path)) {
      if (!valid) wronglyOptional.push(path);
    } else if (valid) {
      stillValid.push(path);
    }
  }
  expect({ removableButNotListedOptional: stillValid, listedOptionalButRequired: wronglyOptional }).toEqual({
    removableButNotListedOptional: [],
    listedOptionalButRequired: [],
  });
}

function expectInvalid(provider: SpecProvider, schemaName: string, value: unknown, ...mustMention: string[]): string[] {
  const { valid, errors } = validateAgainstSpec(provider, schemaName, value);
  expect(valid).toBe(false);
  for (const text of mustMention) expect(errors.join('\n')).toContain(text);
  return errors;
}

// ----------------------------------------------------------------------------------------------

describe('spec extracts', () => {
  it('carry their provenance and contain the root schemas', () => {
    expect(specSource('openai')).toMatchObject({
      repo: 'openai/openai-openapi',
      commit: 'f85dbe223d40e1a31cba812ab2d755c7e98a92a3',
      fileSha256: 'bbfd19abcde0e7412da99378deb2a959ccdd3a812f97c9e35901921e8e973f9a',
      extracted: '2026-11-30',
    });
    expect(specSource('anthropic')).toMatchObject({
      repo: 'tryAGI/Anthropic',
      commit: '8b42a21e6aa7fc9b521cc0c1581f586480b5cad3',
      fileSha256: 'b53f82a0caa6daa36dfacb2446bf181b9d1076ae95004a81292a92a52ada1145',
      extracted: '2026-11-30',
    });
    expect(specSchemaNames('openai')).toEqual(
      expect.arrayContaining([
        'CreateChatCompletionResponse',
        'CreateChatCompletionStreamResponse',
        'Response',
        'ResponseStreamEvent',
        'CreateEmbeddingResponse',
        'ListModelsResponse',
        'Model',
        'ErrorResponse',
      ]),
    );
    expect(specSchemaNames('anthropic')).toEqual(expect.arrayContaining(['Message', 'MessageStreamEvent', 'ErrorResponse', 'Ping']));
  });

  it('compile, every schema of both extracts', () => {
    for (const provider of ['openai', 'anthropic'] as const) {
      for (const name of specSchemaNames(provider)) {
        expect(() => validateAgainstSpec(provider, name, {}), `${provider} ${name}`).not.toThrow();
      }
    }
  });

  it('reject a schema name that is not in the extract', () => {
    expect(() => validateAgainstSpec('openai', 'CreateChatCompletionRequest', {})).toThrow(/no schema/);
  });
});

describe('OpenAPI → JSON Schema 2020 adaptation', () => {
  it('turns nullable:true into a null type, a null enum member, or an anyOf with null', () => {
    expect(adaptOpenApiSchema({ type: 'string', enum: ['stop', 'length'], nullable: true })).toEqual({
      type: ['string', 'null'],
      enum: ['stop', 'length', null],
    });
    expect(adaptOpenApiSchema({ $ref: '#/components/schemas/CompletionUsage', nullable: true })).toEqual({
      anyOf: [{ $ref: '#/components/schemas/CompletionUsage' }, { type: 'null' }],
    });
    expect(adaptOpenApiSchema({ type: 'object', allOf: [{ type: 'object' }], nullable: true })).toEqual({
      anyOf: [{ type: 'object', allOf: [{ type: 'object' }] }, { type: 'null' }],
    });
    expect(adaptOpenApiSchema({ type: 'integer', nullable: false })).toEqual({ type: 'integer' });
  });

  it('drops discriminator, leaves data keywords and property names alone', () => {
    const schema = {
      type: 'object',
      discriminator: { propertyName: 'type' },
      properties: {
        nullable: { type: 'boolean' },
        default: { type: 'string', nullable: true },
        discriminator: { type: 'string' },
      },
      example: { nullable: true, discriminator: { propertyName: 'x' } },
      enum: [{ nullable: true }],
      'x-oaiMeta': { nullable: true },
    };
    expect(adaptOpenApiSchema(schema)).toEqual({
      type: 'object',
      properties: {
        nullable: { type: 'boolean' },
        default: { type: ['string', 'null'] },
        discriminator: { type: 'string' },
      },
      example: { nullable: true, discriminator: { propertyName: 'x' } },
      enum: [{ nullable: true }],
      'x-oaiMeta': { nullable: true },
    });
  });

  it('rewrites $recursiveRef "#" to a $ref to the enclosing component (OpenAI CompoundFilter)', () => {
    const adapted = adaptOpenApiComponents({
      CompoundFilter: { $recursiveAnchor: true, type: 'object', properties: { filters: { items: { oneOf: [{ $recursiveRef: '#' }] } } } },
    });
    expect(adapted).toEqual({
      CompoundFilter: { type: 'object', properties: { filters: { items: { oneOf: [{ $ref: '#/components/schemas/CompoundFilter' }] } } } },
    });
    const inner = { type: 'eq', key: 'k', value: 'v' };
    assertMatchesSpec('openai', 'CompoundFilter', { type: 'and', filters: [inner, { type: 'or', filters: [inner] }] });
    expectInvalid('openai', 'CompoundFilter', { type: 'and', filters: [{ type: 'or', filters: 'not-an-array' }] });
  });
});

// ----------------------------------------------------------------------------------------------

describe('real OpenAI samples', () => {
  it('chat-completion.json is a CreateChatCompletionResponse', () => {
    assertMatchesSpec('openai', 'CreateChatCompletionResponse', sampleJson('openai/chat-completion.json'));
  });

  for (const file of ['openai/chat-stream-text.sse', 'openai/chat-stream-tool-call.sse']) {
    it(`every data chunk of ${file} is a CreateChatCompletionStreamResponse`, () => {
      const events = sseEvents(file);
      expect(events.every((e) => e.event === undefined)).toBe(true); // data-only framing
      expect(events.at(-1)!.data).toBe('[DONE]');
      const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data) as Json);
      expect(chunks.length).toBeGreaterThan(5);
      for (const chunk of chunks) assertMatchesSpec('openai', 'CreateChatCompletionStreamResponse', chunk);
      // The nullable fix-up is what makes these pass: chunks carry finish_reason null
      // (`type:string, enum:[…], nullable:true` in the spec).
      expect(chunks.some((c) => (c.choices as Json[])[0]?.finish_reason === null)).toBe(true);
      expect((chunks.at(-1)!.choices as unknown[]).length).toBe(0); // include_usage chunk
    });
  }

  it('error-400-unsupported-parameter.json is an ErrorResponse', () => {
    assertMatchesSpec('openai', 'ErrorResponse', sampleJson('openai/error-400-unsupported-parameter.json'));
  });

  // The real Responses error stream breaks the spec in exactly the documented ways (see the header
  // of spec-validator.ts): `user: null`, `usage: null`, the nested `error` event, and the
  // `insufficient_quota` code. Undoing those four makes every event valid, so they are the only
  // reasons. The validator deliberately does not loosen them.
  it('responses-stream-error.data.jsonl fails only for the known spec-vs-wire mismatches', () => {
    const events = jsonLines('openai/responses-stream-error.data.jsonl');
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);

    const [created, inProgress, error, failed] = events;
    for (const e of [created, inProgress]) {
      expectInvalid('openai', 'ResponseStreamEvent', e, '/response/user must be string', '/response/usage must be object');
    }
    expectInvalid('openai', 'ResponseStreamEvent', error, "ResponseErrorEvent: (root) must have required property 'code'");
    expectInvalid(
      'openai',
      'ResponseStreamEvent',
      failed,
      '/response/user must be string',
      '/response/usage must be object',
      '/response/error/code must be equal to one of the allowed values',
    );

    const patched = events.map((event) => {
      const e = clone(event);
      if (e.type === 'error') {
        const { error: inner } = e as { error: Json };
        delete e.error;
        Object.assign(e, { code: inner.code, message: inner.message, param: inner.param });
      }
      const response = e.response as Json | undefined;
      if (response) {
        if (response.user === null) delete response.user;
        if (response.usage === null) delete response.usage;
        const err = response.error as Json | null;
        if (err && err.code === 'insufficient_quota') err.code = 'rate_limit_exceeded';
      }
      return e;
    });
    for (const e of patched) assertMatchesSpec('openai', 'ResponseStreamEvent', e);
  });
});

// ----------------------------------------------------------------------------------------------

/**
 * Adds the fields the current Anthropic spec requires but older captures lack: the nullable ones
 * as `null` (Message.stop_details/container, Usage.*, text block citations, MessageDelta.*,
 * MessageDeltaUsage.*) and `caller: {type: "direct"}` on tool_use blocks. Only absent keys are
 * added. If this is all a sample needs, the sample differs from the spec only by its age.
 */
function addFieldsNewerSpecRequires(value: Json): Json {
  const v = clone(value);
  const fill = (obj: unknown, keys: string[], filler: unknown = null): void => {
    if (typeof obj !== 'object' || obj === null) return;
    for (const k of keys) if (!(k in obj)) (obj as Json)[k] = clone(filler);
  };
  const fixBlock = (block: unknown): void => {
    const b = block as Json;
    if (b.type === 'text') fill(b, ['citations']);
    if (b.type === 'tool_use') fill(b, ['caller'], { type: 'direct' });
  };
  const fixMessage = (m: Json): void => {
    fill(m, ['stop_details', 'container']);
    fill(m.usage, ['cache_creation', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'inference_geo', 'server_tool_use', 'service_tier']);
    for (const block of (m.content as unknown[]) ?? []) fixBlock(block);
  };
  if (v.type === 'message') fixMessage(v);
  if (v.type === 'message_start') fixMessage(v.message as Json);
  if (v.type === 'content_block_start') fixBlock(v.content_block);
  if (v.type === 'message_delta') {
    fill(v.delta, ['stop_details', 'container']);
    fill(v.usage, ['cache_creation_input_tokens', 'cache_read_input_tokens', 'input_tokens', 'server_tool_use']);
  }
  return v;
}

function anthropicStreamEvents(file: string): Json[] {
  const events = sseEvents(file);
  for (const e of events) expect(e.event, 'every Anthropic SSE message has an event: line').toBeDefined();
  const payloads = events.map((e) => JSON.parse(e.data) as Json);
  events.forEach((e, i) => expect(payloads[i]!.type).toBe(e.event));
  return payloads;
}

describe('real Anthropic samples', () => {
  // The Stainless spec marks every field required, nullable ones included. These captures predate
  // `container`, `stop_details`, `citations`, `server_tool_use`, `inference_geo`, the newer
  // MessageDeltaUsage fields and the tool_use `caller`, so the events that carry a Message, a
  // content block or a usage object FAIL as captured; ping, content_block_delta,
  // content_block_stop and message_stop PASS. Adding only the missing fields makes all pass.
  const PASS_AS_CAPTURED = ['ping', 'content_block_delta', 'content_block_stop', 'message_stop'];
  const FAIL_AS_CAPTURED = ['message_start', 'content_block_start', 'message_delta'];

  it('message.json fails as captured (no stop_details, container, citations, server_tool_use) and passes once they are added', () => {
    const message = sampleJson('anthropic/message.json') as Json;
    const errors = expectInvalid('anthropic', 'Message', message);
    const missing = errors.flatMap((e) => /^(\S*) must have required property '(\w+)'/.exec(e)?.slice(1, 3).join(' ') ?? []);
    expect(missing).toEqual(expect.arrayContaining(['(root) stop_details', '(root) container', '/content/0 citations', '/usage server_tool_use']));
    assertMatchesSpec('anthropic', 'Message', addFieldsNewerSpecRequires(message));
  });

  for (const file of ['anthropic/stream-text.sse', 'anthropic/stream-tool-use.sse']) {
    it(`${file}: which events pass as captured, and all pass once the newer required fields are added`, () => {
      const payloads = anthropicStreamEvents(file);
      for (const p of payloads) {
        const type = p.type as string;
        const { valid } = validateAgainstSpec('anthropic', 'MessageStreamEvent', p);
        if (PASS_AS_CAPTURED.includes(type)) expect(valid, type).toBe(true);
        else if (FAIL_AS_CAPTURED.includes(type)) expect(valid, type).toBe(false);
        else throw new Error(`unexpected event type ${type}`);
        assertMatchesSpec('anthropic', 'MessageStreamEvent', addFieldsNewerSpecRequires(p));
      }
      expect(payloads.filter((p) => p.type === 'ping')).toHaveLength(1);
    });
  }

  it('stream-tool-use.sse: the tool_use block lacks the now-required caller', () => {
    const start = anthropicStreamEvents('anthropic/stream-tool-use.sse').find(
      (p) => p.type === 'content_block_start' && (p.content_block as Json).type === 'tool_use',
    )!;
    expectInvalid('anthropic', 'ResponseToolUseBlock', start.content_block, "must have required property 'caller'");
  });

  it('stream-text.data.jsonl (data payloads only) behaves the same', () => {
    const payloads = jsonLines('anthropic/stream-text.data.jsonl');
    for (const p of payloads) {
      const { valid } = validateAgainstSpec('anthropic', 'MessageStreamEvent', p);
      expect(valid, p.type as string).toBe(PASS_AS_CAPTURED.includes(p.type as string));
      assertMatchesSpec('anthropic', 'MessageStreamEvent', addFieldsNewerSpecRequires(p));
    }
  });
});

// ----------------------------------------------------------------------------------------------

describe('tampered values fail', () => {
  it('a chat completion without choices', () => {
    const body = clone(sampleJson('openai/chat-completion.json')) as Json;
    delete body.choices;
    expectInvalid('openai', 'CreateChatCompletionResponse', body, "(root) must have required property 'choices'");
  });

  it('a stream chunk with finish_reason "bogus"', () => {
    const chunk = JSON.parse(sseEvents('openai/chat-stream-text.sse')[0]!.data) as Json;
    (chunk.choices as Json[])[0]!.finish_reason = 'bogus';
    expectInvalid('openai', 'CreateChatCompletionStreamResponse', chunk, '/choices/0/finish_reason');
  });

  it('a non-streamed choice with finish_reason null (only chunks may have null)', () => {
    const body = clone(sampleJson('openai/chat-completion.json')) as Json;
    (body.choices as Json[])[0]!.finish_reason = null;
    expectInvalid('openai', 'CreateChatCompletionResponse', body, '/choices/0/finish_reason');
  });

  it('an Anthropic message with type "msg"', () => {
    const message = addFieldsNewerSpecRequires(sampleJson('anthropic/message.json') as Json);
    message.type = 'msg';
    expectInvalid('anthropic', 'Message', message, '/type must be equal to constant');
  });

  it('an Anthropic tool_use block whose input is a JSON string', () => {
    expectInvalid(
      'anthropic',
      'ResponseToolUseBlock',
      { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: '{"city":"Paris"}', caller: { type: 'direct' } },
      '/input must be object',
    );
  });

  it('a Responses event without sequence_number', () => {
    expectInvalid(
      'openai',
      'ResponseStreamEvent',
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi', logprobs: [] },
      "ResponseTextDeltaEvent: (root) must have required property 'sequence_number'",
    );
  });

  it('an embedding as a base64 string (what encoding_format:"base64" returns) is not spec-valid', () => {
    expectInvalid(
      'openai',
      'CreateEmbeddingResponse',
      {
        object: 'list',
        model: 'text-embedding-3-small',
        data: [{ object: 'embedding', index: 0, embedding: 'AACAPwAAAEA=' }],
        usage: { prompt_tokens: 1, total_tokens: 1 },
      },
      '/data/0/embedding must be array',
    );
  });

  it('assertMatchesSpec throws with instance paths and an excerpt of the value', () => {
    const chunk = { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'bogus' }] };
    expect(() => assertMatchesSpec('openai', 'CreateChatCompletionStreamResponse', chunk)).toThrow(
      /does not match openai spec schema CreateChatCompletionStreamResponse[\s\S]*\/choices\/0\/finish_reason must be equal to one of the allowed values[\s\S]*value: \{"id":"x"/,
    );
  });
});

// ----------------------------------------------------------------------------------------------
// Minimal spec-valid shapes a fake provider must emit. `expectMinimal` proves each key is required
// unless listed as optional (optional keys are ones clients or realism want).

const CREATED = 1767225600; // 2026-01-01T00:00:00Z

describe('minimal OpenAI shapes', () => {
  it('chat.completion (non-stream), text', () => {
    expectMinimal('openai', 'CreateChatCompletionResponse', {
      id: 'chatcmpl-fake0001',
      object: 'chat.completion',
      created: CREATED,
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello!', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
    });
  });

  it('chat.completion with tool_calls and usage', () => {
    expectMinimal(
      'openai',
      'CreateChatCompletionResponse',
      {
        id: 'chatcmpl-fake0002',
        object: 'chat.completion',
        created: CREATED,
        model: 'gpt-4o-mini',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              refusal: null,
              tool_calls: [{ id: 'call_fake0001', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
            },
            logprobs: null,
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
      },
      ['/choices/0/message/tool_calls', '/usage'],
    );
  });

  it('chat.completion.chunk: first delta, content delta, finish chunk, tool-call deltas, usage chunk', () => {
    const base = { id: 'chatcmpl-fake0003', object: 'chat.completion.chunk', created: CREATED, model: 'gpt-4o-mini' };
    const schema = 'CreateChatCompletionStreamResponse';
    expectMinimal('openai', schema, { ...base, choices: [{ index: 0, delta: {}, finish_reason: null }] });
    expectMinimal(
      'openai',
      schema,
      { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }], usage: null },
      ['/choices/0/delta/role', '/choices/0/delta/content', '/choices/0/logprobs', '/usage'],
    );
    expectMinimal('openai', schema, { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    expectMinimal(
      'openai',
      schema,
      {
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              content: null,
              tool_calls: [{ index: 0, id: 'call_fake0001', type: 'function', function: { name: 'get_weather', arguments: '' } }],
            },
            finish_reason: null,
          },
        ],
      },
      [
        '/choices/0/delta/role',
        '/choices/0/delta/content',
        '/choices/0/delta/tool_calls',
        '/choices/0/delta/tool_calls/0/id',
        '/choices/0/delta/tool_calls/0/type',
        '/choices/0/delta/tool_calls/0/function',
        '/choices/0/delta/tool_calls/0/function/name',
        '/choices/0/delta/tool_calls/0/function/arguments',
      ],
    );
    expectMinimal(
      'openai',
      schema,
      {
        ...base,
        choices: [],
        usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
      },
      ['/usage'],
    );
  });

  // Response object: the 14 spec-required keys. `status` and `usage` are NOT required by the spec
  // but the fake should send `status` always and `usage` on terminal events only (never
  // `usage: null` and never `user: null`: both are spec-invalid although the real API sends them).
  const RESPONSE_REQUIRED = {
    id: 'resp_fake0001',
    object: 'response',
    created_at: CREATED,
    error: null,
    incomplete_details: null,
    instructions: null,
    model: 'gpt-4o-mini',
    output: [] as unknown[],
    parallel_tool_calls: true,
    metadata: {},
    tool_choice: 'auto',
    temperature: 1,
    top_p: 1,
    tools: [] as unknown[],
  };
  const USAGE = {
    input_tokens: 12,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: 7,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 19,
  };
  const TEXT_PART = { type: 'output_text', text: 'Hello!', annotations: [] as unknown[], logprobs: [] as unknown[] };
  const MESSAGE_ITEM = { type: 'message', id: 'msg_fake0001', role: 'assistant', status: 'completed', content: [TEXT_PART] };
  const CALL_ITEM = {
    type: 'function_call',
    id: 'fc_fake0001',
    call_id: 'call_fake0001',
    name: 'get_weather',
    arguments: '{"city":"Paris"}',
    status: 'completed',
  };

  it('Response object (Responses API)', () => {
    expectMinimal('openai', 'Response', RESPONSE_REQUIRED);
    expectMinimal(
      'openai',
      'Response',
      { ...RESPONSE_REQUIRED, status: 'completed', completed_at: CREATED + 1, output: [MESSAGE_ITEM, CALL_ITEM], usage: USAGE },
      ['/status', '/completed_at', '/output/1/id', '/output/1/status', '/usage'],
    );
    // metadata / temperature / top_p may also be null; user:null and usage:null may not.
    assertMatchesSpec('openai', 'Response', { ...RESPONSE_REQUIRED, metadata: null, temperature: null, top_p: null });
    expectInvalid('openai', 'Response', { ...RESPONSE_REQUIRED, user: null }, '/user must be string');
    expectInvalid('openai', 'Response', { ...RESPONSE_REQUIRED, usage: null }, '/usage must be object');
  });

  it('Responses stream events the fake needs', () => {
    const inProgress = { ...RESPONSE_REQUIRED, status: 'in_progress' };
    const optionalStatus = ['/response/status'];
    const events: Array<[string, Json, string[]]> = [
      ['ResponseCreatedEvent', { type: 'response.created', sequence_number: 0, response: inProgress }, optionalStatus],
      ['ResponseInProgressEvent', { type: 'response.in_progress', sequence_number: 1, response: inProgress }, optionalStatus],
      [
        'ResponseOutputItemAddedEvent',
        {
          type: 'response.output_item.added',
          sequence_number: 2,
          output_index: 0,
          item: { type: 'message', id: 'msg_fake0001', role: 'assistant', status: 'in_progress', content: [] },
        },
        [],
      ],
      [
        'ResponseContentPartAddedEvent',
        {
          type: 'response.content_part.added',
          sequence_number: 3,
          item_id: 'msg_fake0001',
          output_index: 0,
          content_index: 0,
          part: { ...TEXT_PART, text: '' },
        },
        [],
      ],
      [
        'ResponseTextDeltaEvent',
        {
          type: 'response.output_text.delta',
          sequence_number: 4,
          item_id: 'msg_fake0001',
          output_index: 0,
          content_index: 0,
          delta: 'Hello!',
          logprobs: [],
        },
        [],
      ],
      [
        'ResponseTextDoneEvent',
        {
          type: 'response.output_text.done',
          sequence_number: 5,
          item_id: 'msg_fake0001',
          output_index: 0,
          content_index: 0,
          text: 'Hello!',
          logprobs: [],
        },
        [],
      ],
      [
        'ResponseContentPartDoneEvent',
        {
          type: 'response.content_part.done',
          sequence_number: 6,
          item_id: 'msg_fake0001',
          output_index: 0,
          content_index: 0,
          part: TEXT_PART,
        },
        [],
      ],
      ['ResponseOutputItemDoneEvent', { type: 'response.output_item.done', sequence_number: 7, output_index: 0, item: MESSAGE_ITEM }, []],
      [
        'ResponseOutputItemAddedEvent',
        {
          type: 'response.output_item.added',
          sequence_number: 8,
          output_index: 1,
          item: { ...CALL_ITEM, arguments: '', status: 'in_progress' },
        },
        ['/item/id', '/item/status'],
      ],
      [
        'ResponseFunctionCallArgumentsDeltaEvent',
        { type: 'response.function_call_arguments.delta', sequence_number: 9, item_id: 'fc_fake0001', output_index: 1, delta: '{"city":"Paris"}' },
        [],
      ],
      [
        'ResponseFunctionCallArgumentsDoneEvent',
        {
          type: 'response.function_call_arguments.done',
          sequence_number: 10,
          item_id: 'fc_fake0001',
          output_index: 1,
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
        },
        [],
      ],
      [
        'ResponseOutputItemDoneEvent',
        { type: 'response.output_item.done', sequence_number: 11, output_index: 1, item: CALL_ITEM },
        ['/item/id', '/item/status'],
      ],
      [
        'ResponseCompletedEvent',
        {
          type: 'response.completed',
          sequence_number: 12,
          response: { ...RESPONSE_REQUIRED, status: 'completed', output: [MESSAGE_ITEM, CALL_ITEM], usage: USAGE },
        },
        ['/response/status', '/response/output/1/id', '/response/output/1/status', '/response/usage'],
      ],
      [
        'ResponseIncompleteEvent',
        {
          type: 'response.incomplete',
          sequence_number: 5,
          response: { ...RESPONSE_REQUIRED, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: USAGE },
        },
        ['/response/status', '/response/incomplete_details/reason', '/response/usage'],
      ],
      ['ResponseErrorEvent', { type: 'error', sequence_number: 2, code: 'server_error', message: 'The server had an error.', param: null }, []],
      [
        'ResponseFailedEvent',
        {
          type: 'response.failed',
          sequence_number: 3,
          response: { ...RESPONSE_REQUIRED, status: 'failed', error: { code: 'server_error', message: 'The server had an error.' } },
        },
        ['/response/status'],
      ],
    ];
    for (const [schemaName, event, optional] of events) {
      expectMinimal('openai', schemaName, event, optional);
      assertMatchesSpec('openai', 'ResponseStreamEvent', event);
    }
    // ResponseErrorEvent.code may be null; ResponseError.code (in response.failed) may not.
    assertMatchesSpec('openai', 'ResponseStreamEvent', { type: 'error', sequence_number: 2, code: null, message: 'x', param: null });
  });

  it('embeddings list (float arrays)', () => {
    expectMinimal('openai', 'CreateEmbeddingResponse', {
      object: 'list',
      model: 'text-embedding-3-small',
      data: [{ object: 'embedding', index: 0, embedding: [0.0123, -0.0456, 0.0789] }],
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
  });

  it('models list and one model', () => {
    const model = { id: 'gpt-4o-mini', object: 'model', created: CREATED, owned_by: 'openai' };
    expectMinimal('openai', 'Model', model);
    expectMinimal('openai', 'ListModelsResponse', { object: 'list', data: [model] });
  });

  it('error body', () => {
    expectMinimal('openai', 'ErrorResponse', {
      error: { message: 'Rate limit reached.', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    });
  });
});

describe('minimal Anthropic shapes', () => {
  // Every nullable field is required by the spec: send it as null.
  const USAGE = {
    input_tokens: 12,
    output_tokens: 7,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    cache_creation: null,
    server_tool_use: null,
    service_tier: null,
    inference_geo: null,
  };
  const MESSAGE = {
    id: 'msg_fake0001',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'Hello!', citations: null }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: USAGE,
  };
  const TOOL_USE = { type: 'tool_use', id: 'toolu_fake0001', name: 'get_weather', input: {}, caller: { type: 'direct' } };

  it('Message: all required nullable fields present as null', () => {
    expectMinimal('anthropic', 'Message', MESSAGE);
    // With a tool_use block (input is an object; `caller` is required):
    expectMinimal('anthropic', 'Message', { ...MESSAGE, content: [MESSAGE.content[0], { ...TOOL_USE, input: { city: 'Paris' } }], stop_reason: 'tool_use' }, [
      '/content/1/input/city',
    ]);
    // Realistic non-null values are fine too.
    assertMatchesSpec('anthropic', 'Message', {
      ...MESSAGE,
      usage: {
        ...USAGE,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
        service_tier: 'standard',
        inference_geo: 'not_available',
      },
    });
    // Omitting a nullable field is NOT fine.
    const { container: _dropped, ...withoutContainer } = MESSAGE;
    expectInvalid('anthropic', 'Message', withoutContainer, "must have required property 'container'");
    // Nor is SDK 1.14's newer stop reason, which this spec does not list.
    expectInvalid('anthropic', 'Message', { ...MESSAGE, stop_reason: 'model_context_window_exceeded' }, '/stop_reason');
  });

  it('stream events', () => {
    const events: Array<[string, Json, string[]]> = [
      ['MessageStartEvent', { type: 'message_start', message: { ...MESSAGE, content: [], stop_reason: null, usage: { ...USAGE, output_tokens: 1 } } }, []],
      ['ContentBlockStartEvent', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } }, []],
      ['ContentBlockDeltaEvent', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello!' } }, []],
      ['ContentBlockStopEvent', { type: 'content_block_stop', index: 0 }, []],
      ['ContentBlockStartEvent', { type: 'content_block_start', index: 1, content_block: TOOL_USE }, []],
      ['ContentBlockDeltaEvent', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":"Paris"}' } }, []],
      [
        'MessageDeltaEvent',
        {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null, stop_details: null, container: null },
          usage: {
            output_tokens: 7,
            input_tokens: null,
            cache_creation_input_tokens: null,
            cache_read_input_tokens: null,
            server_tool_use: null,
          },
        },
        [],
      ],
      ['MessageStopEvent', { type: 'message_stop' }, []],
      ['Ping', { type: 'ping' }, []],
    ];
    for (const [schemaName, event, optional] of events) {
      expectMinimal('anthropic', schemaName, event, optional);
      assertMatchesSpec('anthropic', 'MessageStreamEvent', event);
    }
  });

  // `event: error` is not a MessageStreamEvent branch in the spec; its payload is an ErrorResponse,
  // whose request_id is required (nullable). The documented wire example omits request_id.
  it('error body and stream error event', () => {
    const error = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: null };
    expectMinimal('anthropic', 'ErrorResponse', error);
    assertMatchesSpec('anthropic', 'ErrorResponse', { ...error, request_id: 'req_fake0001' });
    expectInvalid('anthropic', 'MessageStreamEvent', error);
    const { request_id: _dropped, ...documented } = error;
    expectInvalid('anthropic', 'ErrorResponse', documented, "must have required property 'request_id'");
    for (const type of [
      'invalid_request_error',
      'authentication_error',
      'billing_error',
      'permission_error',
      'not_found_error',
      'rate_limit_error',
      'timeout_error',
      'api_error',
      'overloaded_error',
    ]) {
      assertMatchesSpec('anthropic', 'ErrorResponse', { type: 'error', error: { type, message: 'x' }, request_id: null });
    }
    expectInvalid('anthropic', 'ErrorResponse', { type: 'error', error: { type: 'request_too_large', message: 'x' }, request_id: null });
  });
});

describe('the Ollama extract', () => {
  // Ollama's docs/openapi.yaml closes no object and requires almost nothing: it checks the types of
  // the fields an answer has. The real samples (ollama/ollama docs/api.md) pass; wrong types fail.
  it('carries its provenance, compiles, and takes the real chat samples', () => {
    expect(specSource('ollama')).toMatchObject({
      repo: 'ollama/ollama',
      commit: 'fb30760996871fa9460115c753afd2c60d4ab0f7',
      fileSha256: '9c660bb9a714bcb746cff7ec4270a0e43f63b705f7f3362fcc335f18b5d0b178',
    });
    for (const name of specSchemaNames('ollama')) expect(() => validateAgainstSpec('ollama', name, {}), name).not.toThrow();
    assertMatchesSpec('ollama', 'ChatResponse', sampleJson('ollama/chat-tool-call.json'));
    for (const line of jsonLines('ollama/chat-stream-tool-call.ndjson')) assertMatchesSpec('ollama', 'ChatStreamEvent', line);
    // The text sample comes from an older server, which sent a nil image list as `"images": null`.
    const [first, last] = jsonLines('ollama/chat-stream-text.ndjson');
    expect(expectInvalid('ollama', 'ChatStreamEvent', first)).toEqual([
      '/message/images must be array {"type":"array"} [schema #/properties/message/properties/images/type]',
    ]);
    assertMatchesSpec('ollama', 'ChatStreamEvent', last);
  });

  it('rejects fields of the wrong type, and nothing is required', () => {
    const answer = sampleJson('ollama/chat-tool-call.json') as Json;
    expectInvalid('ollama', 'ChatResponse', { ...answer, done: 'true' }, 'must be boolean');
    expectInvalid('ollama', 'ChatResponse', { ...answer, eval_count: 1.5 }, 'must be integer');
    expectInvalid(
      'ollama',
      'ChatResponse',
      { ...answer, message: { ...(answer.message as Json), role: 'user' } },
      'must be equal to one of the allowed values',
    );
    expectInvalid('ollama', 'ErrorResponse', { error: { message: 'nested' } }, 'must be string');
    expect(validateAgainstSpec('ollama', 'ChatResponse', {}).valid).toBe(true);
  });
});
