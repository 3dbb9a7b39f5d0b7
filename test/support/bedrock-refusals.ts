// What Bedrock refuses before any model runs, one table per API, shared by the unit tests of the
// refusal rules (providers/bedrock/*/refusals.test.ts) and by the FakeProvider's test, which sends
// each body through the unmodified AWS SDK (or, for a body the SDK never sends, as raw bytes).

/** One refused body: what it is, the body as sent, Bedrock's 400 ValidationException message. */
export interface BedrockRefusal {
  name: string;
  body: Record<string, unknown>;
  message: string;
  /** The AWS SDK cannot send it (its serializer drops a member it does not model). @default true */
  sdk?: boolean;
}

const user = (text: string) => ({ role: 'user', content: [{ text }] });
const use = { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'bash', input: { command: 'ls' } } }] };
const result = { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'a.txt' }] } }] };
const toolConfig = { tools: [{ toolSpec: { name: 'bash', inputSchema: { json: { type: 'object' } } } }] };

/** A Converse body with every field the API has, in a well-formed tool loop: refused by nothing. */
export const ACCEPTED_CONVERSE_BODY: Record<string, unknown> = {
  messages: [user('List the files.'), use, result],
  system: [{ text: 'Be brief.' }],
  inferenceConfig: { maxTokens: 1, temperature: 1, topP: 0, stopSequences: ['END'] },
  toolConfig: { ...toolConfig, toolChoice: { tool: { name: 'bash' } } },
  additionalModelRequestFields: { top_k: 5 },
  outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: '{"type":"object"}' } } } },
};

/** Converse and ConverseStream (`/model/{modelId}/converse`, `…/converse-stream`). */
export const CONVERSE_REFUSALS: readonly BedrockRefusal[] = [
  { name: 'no messages', body: {}, message: "Value 'null' at 'messages' failed to satisfy constraint: Member must have length greater than or equal to 1" },
  {
    name: 'empty messages',
    body: { messages: [] },
    message: "Value '[]' at 'messages' failed to satisfy constraint: Member must have length greater than or equal to 1",
  },
  {
    name: 'a first message from the assistant',
    body: { messages: [{ role: 'assistant', content: [{ text: 'Hi' }] }] },
    message: 'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
  },
  {
    name: 'two user messages in a row',
    body: { messages: [user('Hi'), user('Again')] },
    message:
      'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
  },
  {
    name: 'a message with no content',
    body: { messages: [user('Hi'), { role: 'assistant', content: [] }] },
    message: 'The content field in the Message object at messages.1 is empty. Add a ContentBlock object to the content field and try again.',
  },
  {
    name: 'a blank text',
    body: { messages: [user('Hi'), { role: 'assistant', content: [{ text: '\n\n' }] }, user('What?')] },
    message: 'The text field in the ContentBlock object at messages.1.content.0 is blank. Add text to the text field, and try again.',
  },
  {
    name: 'a tool result with no tool use before it',
    body: { messages: [user('Hi'), { role: 'assistant', content: [{ text: 'Hello.' }] }, result], toolConfig },
    message: 'The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn.',
  },
  {
    name: 'a tool use left without its result',
    body: { messages: [user('Hi'), use, user('Never mind.')], toolConfig },
    message: 'Expected toolResult blocks at messages.2.content for the following Ids: t1',
  },
  {
    name: 'tool blocks without a toolConfig',
    body: { messages: [user('Hi'), use, result] },
    message: 'The toolConfig field must be defined when using toolUse and toolResult content blocks.',
  },
  {
    name: 'maxTokens below 1',
    body: { messages: [user('Hi')], inferenceConfig: { maxTokens: 0 } },
    message: "Value '0' at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1",
  },
  {
    name: 'a temperature above 1',
    body: { messages: [user('Hi')], inferenceConfig: { temperature: 1.5 } },
    message: "Value '1.5' at 'inferenceConfig.temperature' failed to satisfy constraint: Member must have value less than or equal to 1",
  },
  {
    name: 'a temperature below 0',
    body: { messages: [user('Hi')], inferenceConfig: { temperature: -0.5 } },
    message: "Value '-0.5' at 'inferenceConfig.temperature' failed to satisfy constraint: Member must have value greater than or equal to 0",
  },
  {
    name: 'a tool name with a space',
    body: { messages: [user('Hi')], toolConfig: { tools: [{ toolSpec: { name: 'Complete Session', inputSchema: { json: {} } } }] } },
    message:
      "Value 'Complete Session' at 'toolConfig.tools.1.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
  },
  {
    name: 'a tool name longer than 64',
    body: { messages: [user('Hi')], toolConfig: { tools: [{ toolSpec: { name: 'a'.repeat(65), inputSchema: { json: {} } } }] } },
    message: `Value '${'a'.repeat(65)}' at 'toolConfig.tools.1.member.toolSpec.name' failed to satisfy constraint: Member must have length less than or equal to 64`,
  },
  {
    name: 'a forced tool the request does not offer',
    body: { messages: [user('Hi')], toolConfig: { ...toolConfig, toolChoice: { tool: { name: 'grep' } } } },
    message: 'The tool grep in toolConfig.toolChoice is not defined in toolConfig.tools. Add a tool specification named grep, or choose a defined tool.',
  },
  {
    name: 'an unknown field',
    body: { messages: [user('Hi')], max_tokens: 100 },
    message: 'Malformed input request: #: extraneous key [max_tokens] is not permitted, please reformat your input and try again.',
    sdk: false,
  },
];

/** A Claude InvokeModel body: Anthropic Messages without `model` and `stream`. */
export const claudeInvokeBody = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  anthropic_version: 'bedrock-2023-05-31',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

/** A Nova InvokeModel body: Converse's shape. */
export const novaInvokeBody = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  messages: [user('Hi')],
  inferenceConfig: { max_new_tokens: 64 },
  ...extra,
});

/** InvokeModel and InvokeModelWithResponseStream, to a Claude or a Nova model (every body goes through the SDK: its body is bytes). */
export const INVOKE_REFUSALS: ReadonlyArray<BedrockRefusal & { model: string }> = [
  {
    name: 'a Claude body without max_tokens',
    model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
    body: { anthropic_version: 'bedrock-2023-05-31', messages: [{ role: 'user', content: 'Hi' }] },
    message: 'Malformed input request: #: required key [max_tokens] not found, please reformat your input and try again.',
  },
  {
    name: 'a Claude body that names its model and asks to stream (the path says both)',
    model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    body: claudeInvokeBody({ model: 'claude-sonnet-4-5', stream: true }),
    message: 'Malformed input request: 2 schema violations found, please reformat your input and try again.',
  },
  {
    name: 'a Nova body sent to a Claude model',
    model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
    body: novaInvokeBody(),
    message: 'Malformed input request: 3 schema violations found, please reformat your input and try again.',
  },
  {
    name: 'a Claude body sent to a Nova model',
    model: 'amazon.nova-lite-v1:0',
    body: claudeInvokeBody(),
    message: 'Malformed input request: 2 schema violations found, please reformat your input and try again.',
  },
  {
    name: 'a Claude conversation that starts with the assistant',
    model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
    body: claudeInvokeBody({ messages: [{ role: 'assistant', content: 'Hello.' }] }),
    message: 'messages: first message must use the "user" role',
  },
  {
    name: 'a Claude tool result with no tool use before it',
    model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
    body: claudeInvokeBody({
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello.' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] },
      ],
    }),
    message:
      'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
  },
  {
    name: 'a Nova conversation where the user speaks twice',
    model: 'us.amazon.nova-micro-v1:0',
    body: novaInvokeBody({ messages: [user('Hi'), user('Again')] }),
    message:
      'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
  },
  {
    name: 'a Nova body with a temperature above 1',
    model: 'us.amazon.nova-micro-v1:0',
    body: novaInvokeBody({ inferenceConfig: { temperature: 1.5 } }),
    message: "Value '1.5' at 'inferenceConfig.temperature' failed to satisfy constraint: Member must have value less than or equal to 1",
  },
];
