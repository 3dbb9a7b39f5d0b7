import { isRecord } from '../../../core/internal.js';
import type { ProviderError } from '../../provider-error.js';
import type { RefusalOptions } from '../../refusal.js';
import { blocksOf, memberOf, toolResultOf, toolUseOf } from './content.js';

/** The members of a ConverseRequest body, per the API reference (and the AWS SDK's model of it). */
const REQUEST_FIELDS = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'guardrailConfig',
  'additionalModelRequestFields',
  'additionalModelResponseFieldPaths',
  'promptVariables',
  'requestMetadata',
  'performanceConfig',
  'serviceTier',
  'outputConfig',
]);

// ToolSpecification.name, per the API reference: 1 to 64 of letters, digits, `_` and `-`.
const TOOL_NAME = /^[a-zA-Z0-9_-]+$/;

/**
 * The 400 `ValidationException` Bedrock answers a Converse (or ConverseStream) body with before
 * any model runs, or undefined. Where each message was seen in a real answer, the comment beside
 * it says where; the rest follow the form of the service's constraint errors
 * (`Value '…' at '…' failed to satisfy constraint: …`, as stdapi-ai/stdapi.ai#224 and
 * aws-samples/remote-swe-agents#457 quote them) for the constraints the API reference states, and
 * say so. What is refused is what every model behind Converse is held to, and Claude's tool-result
 * pairing (the models most used there; the genkit report below is of Claude).
 */
export function refuseConverseRequest(body: Record<string, unknown>, _options?: RefusalOptions): ProviderError | undefined {
  const refuse = (message: string): ProviderError => ({ status: 400, type: 'ValidationException', message });
  // An approximation: the wording of InvokeModel's schema check ("Malformed input request: #:
  // extraneous key [stream] is not permitted, please reformat your input and try again.", quoted in
  // fumito-ito/AnthropicSwiftSDK#19); no captured Converse answer to an unknown member was found.
  for (const name of Object.keys(body))
    if (!REQUEST_FIELDS.has(name))
      return refuse(`Malformed input request: #: extraneous key [${name}] is not permitted, please reformat your input and try again.`);
  return refuseConverseShaped(body);
}

/**
 * What Bedrock refuses in a body of Converse's shape, whatever its other members: Converse's own,
 * or an Amazon Nova InvokeModel body (the same `system`, `messages` and `toolConfig`): the
 * conversation, the inference bounds, the tools, the output schema.
 */
export function refuseConverseShaped(body: Record<string, unknown>): ProviderError | undefined {
  const refuse = (message: string): ProviderError => ({ status: 400, type: 'ValidationException', message });
  const constraint = (value: unknown, at: string, rule: string): ProviderError =>
    refuse(`Value '${typeof value === 'string' ? value : JSON.stringify(value)}' at '${at}' failed to satisfy constraint: ${rule}`);
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    // An approximation in the form of the constraint errors: messages is required, and at least one.
    return constraint(body.messages ?? null, 'messages', 'Member must have length greater than or equal to 1');
  const messages = body.messages as unknown[];
  let previousUses: string[] = [];
  let previousRole: unknown;
  let toolBlocks = false;
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message)) return refuse(`Malformed input request: #/messages/${index}: expected type: JSONObject, please reformat your input and try again.`);
    if (message.role !== 'user' && message.role !== 'assistant')
      return constraint(message.role ?? null, `messages.${index}.member.role`, 'Member must satisfy enum value set: [user, assistant]');
    // "A conversation must start with a user message. Try again with a conversation that starts
    // with a user message." (langgenius/dify#12340, and litellm's relay of it in
    // aws-solutions-library-samples/guidance-for-multi-provider-generative-ai-gateway-on-aws#123)
    if (index === 0 && message.role !== 'user')
      return refuse('A conversation must start with a user message. Try again with a conversation that starts with a user message.');
    // langchain-ai/langchain-aws#192, microsoft/semantic-kernel#10277
    if (message.role === previousRole)
      return refuse(
        'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
      );
    previousRole = message.role;
    const blocks = blocksOf(message.content);
    // As recorded by vercel/ai (packages/amazon-bedrock/src/__fixtures__/amazon-bedrock-empty-message-validation-error.json).
    if (blocks.length === 0)
      return refuse(`The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`);
    for (const [position, block] of blocks.entries()) {
      // aws-samples/bedrock-engineer#8, langchain-ai/langchain-aws#403 (a text of only whitespace too).
      if (typeof block.text === 'string' && block.text.trim() === '')
        return refuse(
          `The text field in the ContentBlock object at messages.${index}.content.${position} is blank. Add text to the text field, and try again.`,
        );
      const result = toolResultOf(block);
      // aws-samples/sample-multi-agent-orchestration-chat-on-agentcore#15
      if (result?.isError === true && blocksOf(result.content).length === 0)
        return refuse(`The content field at messages.${index}.content.${position}.toolResult cannot be empty when status value is error.`);
      if (memberOf(block) === 'toolUse' || memberOf(block) === 'toolResult') toolBlocks = true;
    }
    const results = blocks.map(toolResultOf).filter((result) => result !== undefined);
    if (results.length > 0) {
      // Just-Curieous/Curie#16, pydantic/pydantic-ai#2327
      if (message.role !== 'user' || results.length > previousUses.length)
        return refuse(`The number of toolResult blocks at messages.${index}.content exceeds the number of toolUse blocks of previous turn.`);
    }
    if (previousUses.length > 0 && message.role === 'user') {
      const answered = new Set(results.map((result) => result.id));
      const missing = previousUses.filter((id) => !answered.has(id));
      // genkit-ai/aws-bedrock-js-plugin#664 (Claude through Converse)
      if (missing.length > 0) return refuse(`Expected toolResult blocks at messages.${index}.content for the following Ids: ${missing.join(', ')}`);
    }
    previousUses = message.role === 'assistant' ? blocks.map(toolUseOf).flatMap((use) => (use === undefined ? [] : [use.id])) : [];
  }
  const toolConfig = body.toolConfig;
  // langgenius/dify#16421, vercel/ai#7537
  if (toolBlocks && !isRecord(toolConfig)) return refuse('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
  const inference = isRecord(body.inferenceConfig) ? body.inferenceConfig : {};
  // The bounds are the API reference's (InferenceConfiguration); the wording that of the
  // constraint error stdapi-ai/stdapi.ai#224 quotes for temperature 1.5.
  if (typeof inference.maxTokens === 'number' && inference.maxTokens < 1)
    return constraint(inference.maxTokens, 'inferenceConfig.maxTokens', 'Member must have value greater than or equal to 1');
  for (const name of ['temperature', 'topP'] as const) {
    const value = inference[name];
    if (typeof value !== 'number') continue;
    if (value < 0) return constraint(value, `inferenceConfig.${name}`, 'Member must have value greater than or equal to 0');
    if (value > 1) return constraint(value, `inferenceConfig.${name}`, 'Member must have value less than or equal to 1');
  }
  if (Array.isArray(inference.stopSequences) && inference.stopSequences.length > 4)
    return constraint(inference.stopSequences, 'inferenceConfig.stopSequences', 'Member must have length less than or equal to 4');
  if (isRecord(toolConfig)) {
    const tools = Array.isArray(toolConfig.tools) ? (toolConfig.tools as unknown[]) : [];
    // An approximation in the form of the constraint errors: ToolConfiguration.tools has at least one member.
    if (tools.length === 0) return constraint(toolConfig.tools ?? null, 'toolConfig.tools', 'Member must have length greater than or equal to 1');
    const names = new Set<string>();
    for (const [index, tool] of tools.entries()) {
      const spec = isRecord(tool) && isRecord(tool.toolSpec) ? tool.toolSpec : undefined;
      if (spec === undefined) continue;
      const at = `toolConfig.tools.${index + 1}.member.toolSpec.name`;
      // aws-samples/remote-swe-agents#457 (its index is 1-based, as the service counts members).
      if (typeof spec.name !== 'string' || !TOOL_NAME.test(spec.name))
        return constraint(spec.name ?? null, at, 'Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+');
      if (spec.name.length > 64) return constraint(spec.name, at, 'Member must have length less than or equal to 64');
      names.add(spec.name);
    }
    const choice = isRecord(toolConfig.toolChoice) ? toolConfig.toolChoice : undefined;
    const named = isRecord(choice?.tool) ? choice.tool.name : undefined;
    // An approximation: a forced tool the request does not offer; no captured answer to one was found.
    if (choice !== undefined && isRecord(choice.tool) && !names.has(String(named)))
      return refuse(
        `The tool ${String(named)} in toolConfig.toolChoice is not defined in toolConfig.tools. Add a tool specification named ${String(named)}, or choose a defined tool.`,
      );
  }
  const format = isRecord(body.outputConfig) && isRecord(body.outputConfig.textFormat) ? body.outputConfig.textFormat : undefined;
  const definition = isRecord(format?.structure) && isRecord(format.structure.jsonSchema) ? format.structure.jsonSchema : undefined;
  if (typeof definition?.schema === 'string') {
    try {
      JSON.parse(definition.schema);
    } catch {
      // An approximation: the schema is a JSON string (JsonSchemaDefinition.schema).
      return refuse('The JSON schema at outputConfig.textFormat.structure.jsonSchema.schema is not valid JSON. Provide a valid JSON schema and try again.');
    }
  }
  return undefined;
}
