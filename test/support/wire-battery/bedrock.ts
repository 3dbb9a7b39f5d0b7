// Bedrock Runtime's wire APIs in the battery: Converse (and ConverseStream) and InvokeModel (and
// InvokeModelWithResponseStream) with Anthropic Claude and Amazon Nova bodies. AWS publishes no
// OpenAPI document (its Smithy model is the AWS SDK's), so these entries have no `spec`: their
// bytes are checked by the stream grammars (providers/bedrock/), Bedrock's error shape, and the
// clients reading them: the unmodified @aws-sdk/client-bedrock-runtime (its own deserializers and
// event stream codec, over a request handler that answers the surface's bytes), AnthropicBedrock
// for Claude, and `ai` with @ai-sdk/amazon-bedrock (Converse, and bedrockAnthropic for Claude).
import { Readable } from 'node:stream';
import AnthropicBedrock from '@anthropic-ai/bedrock-sdk';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createBedrockAnthropic } from '@ai-sdk/amazon-bedrock/anthropic';
import {
  BedrockRuntimeClient,
  BedrockRuntimeServiceException,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  type ConverseCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
import { checkConverseStreamGrammar, checkInvokeStreamGrammar, type GrammarEvent } from '../../../providers/internal.js';
import {
  answerSchema,
  expectClientReading,
  replaying,
  settle,
  turnCases,
  vercelReading,
  vercelReads,
  weather,
  type ClientErrors,
  type Shape,
  type WireAnswer,
  type WireApiUnderTest,
  type WireCase,
} from '../wire-conformance.js';

// @ai-sdk/amazon-bedrock 3 speaks the provider specification v2, which `ai` 6 takes in a
// compatibility mode, and says so on every call.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const CLAUDE = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const NOVA = 'us.amazon.nova-micro-v1:0';
const CREDENTIALS = { accessKeyId: 'AKIDFAKEFAKEFAKEFAKE', secretAccessKey: 'fake-secret-access-key' };

/** The AWS SDK's exceptions: every modeled one and the unmodeled (`fake_script_exhausted`) extend its service exception; the status is in `$metadata`. */
const AWS_ERRORS: ClientErrors = {
  apiError: BedrockRuntimeServiceException,
  status: (error) => (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode,
};
const ANTHROPIC_BEDROCK_ERRORS: ClientErrors = { apiError: AnthropicBedrock.APIError };

/** Bedrock's error body `{"message": …}` (its type is in `x-amzn-errortype`), or a stream exception's payload, which adds the model's status and message. */
function bedrockErrorShape(body: unknown): string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [`expected {"message": …}, found ${JSON.stringify(body)?.slice(0, 120)}`];
  const record = body as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof record.message !== 'string' || record.message === '') problems.push('.message: expected a non-empty string');
  for (const name of Object.keys(record))
    if (!['message', 'originalStatusCode', 'originalMessage'].includes(name)) problems.push(`.${name}: not a member of Bedrock's errors`);
  return problems;
}

/** An exception message of a Bedrock stream: `:exception-type` names one (`modelStreamErrorException`). */
const isException = (event: GrammarEvent): boolean => event.event !== undefined && /Exception$/.test(event.event);

/**
 * A request handler for the AWS SDK that answers every request with the surface's bytes, as its
 * Node handler would have read them: a cut before the response rejects (`fetch failed`), a cut
 * body errors (`terminated`) after the bytes that came.
 */
function replayingHandler(answer: WireAnswer) {
  const socketClosed = () => Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
  return {
    metadata: { handlerProtocol: 'http/1.1' },
    async handle() {
      if (answer.cut === 'no-response') throw new TypeError('fetch failed', { cause: socketClosed() });
      const bytes = Buffer.from(answer.bytes);
      async function* cutShort(): AsyncGenerator<Buffer> {
        if (bytes.length > 0) yield bytes;
        throw new TypeError('terminated', { cause: socketClosed() });
      }
      const body = Readable.from(answer.cut === 'mid-body' ? cutShort() : bytes.length === 0 ? [] : [bytes]);
      const headers: Record<string, string> = {};
      answer.headers.forEach((value, name) => (headers[name] = value));
      return { response: { statusCode: answer.status, headers, body } };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
    destroy() {},
  };
}

function awsClient(answer: WireAnswer): BedrockRuntimeClient {
  return new BedrockRuntimeClient({ region: 'us-east-1', credentials: CREDENTIALS, maxAttempts: 1, requestHandler: replayingHandler(answer) as never });
}

function vercelProvider(answer: WireAnswer) {
  return { region: 'us-east-1', ...CREDENTIALS, fetch: replaying(answer) };
}

// --- Converse ------------------------------------------------------------------------------------

const converseTools = { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: weather } } }] };

function converseMessages(tag: string, toolResults = false): unknown[] {
  return [
    { role: 'user', content: [{ text: `Weather in Paris? (${tag})` }] },
    ...(toolResults
      ? [
          { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } }] },
          { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: '14 °C' }] } }] },
        ]
      : []),
  ];
}

/** The events of a Bedrock stream as the grammars read them: each with its type and its payload. */
function converseEvents(events: readonly GrammarEvent[]) {
  return events.map((event) => ({ type: event.event, payload: JSON.parse(event.data) as unknown }));
}

export const converse: WireApiUnderTest = {
  api: 'bedrock-converse',
  upstream: 'bedrock',
  request: (shape) => ({
    method: 'POST',
    path: `/model/${encodeURIComponent(CLAUDE)}/${shape.stream ? 'converse-stream' : 'converse'}`,
    body: {
      // A Converse request with no message is refused.
      messages: shape.refused ? [] : converseMessages(shape.tag, shape.toolResults),
      ...(shape.system ? { system: [{ text: 'Be brief.' }] } : {}),
      inferenceConfig: { maxTokens: 256 },
      ...(shape.tools ? { toolConfig: converseTools } : {}),
      ...(shape.structured
        ? { outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: JSON.stringify(answerSchema), name: 'answer' } } } } }
        : {}),
    },
  }),
  // Bedrock answers an overload as a 429 ModelNotReadyException.
  cases: turnCases(429),
  streamFormat: 'eventstream',
  grammar: (events) => checkConverseStreamGrammar(converseEvents(events)),
  isErrorEvent: isException,
  errorShape: bedrockErrorShape,
  async clients(answer, request, testCase) {
    const input = { modelId: CLAUDE, ...(request.body as Partial<ConverseCommandInput>) } as ConverseCommandInput;
    const streamed = testCase.shape.stream;
    const reading = await settle(async () =>
      streamed ? (await awsClient(answer).send(new ConverseStreamCommand(input))).stream : awsClient(answer).send(new ConverseCommand(input)),
    );
    expectClientReading('@aws-sdk/client-bedrock-runtime', reading, testCase, AWS_ERRORS);
    if (!vercelReads(testCase)) return 1;
    return 1 + (await vercelReading(createAmazonBedrock(vercelProvider(answer))(CLAUDE), testCase));
  },
};

// --- InvokeModel ---------------------------------------------------------------------------------

/** Which family a case's body is in: its tag says (`claude:…`, `nova:…`), so each family has every case. */
function familyOf(shape: Shape): 'claude' | 'nova' {
  return shape.tag.startsWith('nova:') ? 'nova' : 'claude';
}

function claudeInvokeBody(shape: Shape): Record<string, unknown> {
  return {
    anthropic_version: 'bedrock-2023-05-31',
    // A Claude body without max_tokens is refused.
    ...(shape.refused ? {} : { max_tokens: 256 }),
    ...(shape.system ? { system: 'Be brief.' } : {}),
    messages: [
      { role: 'user', content: `Weather in Paris? (${shape.tag})` },
      ...(shape.toolResults
        ? [
            { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '14 °C' }] },
          ]
        : []),
    ],
    ...(shape.tools ? { tools: [{ name: 'get_weather', input_schema: weather }] } : {}),
    ...(shape.structured ? { output_config: { format: { type: 'json_schema', schema: answerSchema } } } : {}),
  };
}

function novaInvokeBody(shape: Shape): Record<string, unknown> {
  // Nova's InvokeModel has no response schema: a structured answer comes as a forced tool's input, as clients ask it.
  const toolConfig = shape.structured
    ? { tools: [{ toolSpec: { name: 'answer', inputSchema: { json: answerSchema } } }], toolChoice: { tool: { name: 'answer' } } }
    : shape.tools
      ? converseTools
      : undefined;
  return {
    // A Nova conversation with no message is refused.
    messages: shape.refused ? [] : converseMessages(shape.tag, shape.toolResults),
    ...(shape.system ? { system: [{ text: 'Be brief.' }] } : {}),
    inferenceConfig: { max_new_tokens: 256 },
    ...(toolConfig === undefined ? {} : { toolConfig }),
  };
}

/** The turn cases once per family, each tag prefixed with its family. */
function familyCases(family: 'claude' | 'nova'): WireCase[] {
  return turnCases(429).map((testCase) => ({
    ...testCase,
    name: `${family}: ${testCase.name}`,
    shape: { ...testCase.shape, tag: `${family}:${testCase.shape.tag}` },
  }));
}

/** The messages of an InvokeModelWithResponseStream as its grammar reads them: each chunk's `bytes` decoded. */
function invokeMessages(events: readonly GrammarEvent[]) {
  return events.map((event) => {
    const exception = isException(event);
    const payload = JSON.parse(event.data) as { bytes?: unknown };
    const data = !exception && typeof payload.bytes === 'string' ? Buffer.from(payload.bytes, 'base64').toString('utf8') : event.data;
    return { event: event.event, exception, data, json: JSON.parse(data) as unknown };
  });
}

export const invoke: WireApiUnderTest = {
  api: 'bedrock-invoke',
  upstream: 'bedrock',
  request(shape) {
    const nova = familyOf(shape) === 'nova';
    return {
      method: 'POST',
      path: `/model/${encodeURIComponent(nova ? NOVA : CLAUDE)}/${shape.stream ? 'invoke-with-response-stream' : 'invoke'}`,
      body: nova ? novaInvokeBody(shape) : claudeInvokeBody(shape),
    };
  },
  cases: [...familyCases('claude'), ...familyCases('nova')],
  streamFormat: 'eventstream',
  grammar: (events) => checkInvokeStreamGrammar(invokeMessages(events)),
  isErrorEvent: isException,
  errorShape: bedrockErrorShape,
  async clients(answer, request, testCase) {
    const claude = familyOf(testCase.shape) === 'claude';
    const modelId = claude ? CLAUDE : NOVA;
    const streamed = testCase.shape.stream;
    const input = { modelId, contentType: 'application/json', body: JSON.stringify(request.body) };
    const reading = await settle(async () =>
      streamed ? (await awsClient(answer).send(new InvokeModelWithResponseStreamCommand(input))).body : awsClient(answer).send(new InvokeModelCommand(input)),
    );
    expectClientReading('@aws-sdk/client-bedrock-runtime', reading, testCase, AWS_ERRORS);
    if (!claude) return 1;
    // AnthropicBedrock takes Anthropic's parameters: the model and whether it streams, which it moves into the path.
    const { anthropic_version: _version, ...params } = request.body!;
    const client = new AnthropicBedrock({
      awsRegion: 'us-east-1',
      awsAccessKey: CREDENTIALS.accessKeyId,
      awsSecretKey: CREDENTIALS.secretAccessKey,
      fetch: replaying(answer),
      maxRetries: 0,
    });
    const create = client.messages.create as unknown as (body: Record<string, unknown>) => Promise<unknown>;
    expectClientReading(
      '@anthropic-ai/bedrock-sdk',
      await settle(() => create.call(client.messages, { ...params, model: CLAUDE, ...(streamed ? { stream: true } : {}) })),
      testCase,
      ANTHROPIC_BEDROCK_ERRORS,
    );
    if (!vercelReads(testCase)) return 2;
    return 2 + (await vercelReading(createBedrockAnthropic(vercelProvider(answer))(CLAUDE), testCase));
  },
};
