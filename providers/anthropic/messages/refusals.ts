import { isRecord } from '../../../core/internal.js';
import type { ProviderError } from '../../provider-error.js';
import type { RefusalOptions } from '../../refusal.js';
import { checkAnthropicStrictSchema } from '../../strict-schema.js';
import { blocksOf, outputFormat } from './blocks.js';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/** The 400 Anthropic answers a Messages request with before any model runs, or undefined. */
export function refuseMessagesRequest(body: Record<string, unknown>, options: RefusalOptions): ProviderError | undefined {
  const constrained = options.constrained;
  const refuse = (message: string): ProviderError => ({ status: 400, type: 'invalid_request_error', message });
  if (body.model === undefined) return refuse('model: Field required');
  if (body.max_tokens === undefined) return refuse('max_tokens: Field required');
  if (typeof body.max_tokens !== 'number' || body.max_tokens < 1) return refuse('max_tokens: Input should be greater than or equal to 1');
  if (body.messages === undefined) return refuse('messages: Field required');
  if (!Array.isArray(body.messages)) return refuse('messages: Input should be a valid list');
  if (body.messages.length === 0) return refuse('messages: at least one message is required');
  if (typeof body.temperature === 'number' && (body.temperature < 0 || body.temperature > 1)) {
    return refuse(`temperature: Input should be ${body.temperature < 0 ? 'greater than or equal to 0' : 'less than or equal to 1'}`);
  }
  const messages = body.messages as unknown[];
  let previousToolUses = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message)) return refuse(`messages.${index}: Input should be a valid dictionary`);
    if (message.role !== 'user' && message.role !== 'assistant') return refuse(`messages.${index}.role: Input should be 'user' or 'assistant'`);
    if (index === 0 && message.role !== 'user' && options.anthropicPlatform === 'bedrock') return refuse('messages: first message must use the "user" role');
    const blocks = blocksOf(message.content);
    const isLast = index === messages.length - 1;
    if (blocks.length === 0 && !(isLast && message.role === 'assistant')) {
      return refuse(`messages.${index}: all messages must have non-empty content except for the optional final assistant message`);
    }
    const results = blocks.filter((block) => block.type === 'tool_result');
    for (const [position, block] of blocks.entries()) {
      if (block.type !== 'tool_result') continue;
      if (message.role !== 'user' || !previousToolUses.has(String(block.tool_use_id))) {
        return refuse(
          `messages.${index}.content.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
    }
    if (previousToolUses.size > 0) {
      const answered = new Set(results.map((block) => String(block.tool_use_id)));
      const missing = [...previousToolUses].filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return refuse(
          `messages.${index - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
    }
    previousToolUses = new Set(message.role === 'assistant' ? blocks.filter((block) => block.type === 'tool_use').map((block) => String(block.id)) : []);
  }
  const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
  const names = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    if (!isRecord(tool) || (tool.type !== undefined && tool.type !== 'custom')) continue;
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
      return refuse(`tools.${index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    if (names.has(tool.name)) return refuse('tools: Tool names must be unique.');
    names.add(tool.name);
    if (!isRecord(tool.input_schema)) return refuse(`tools.${index}.custom.input_schema: Field required`);
    if (constrained && tool.strict === true) {
      const violation = checkAnthropicStrictSchema(tool.input_schema);
      if (violation) return refuse(`tools.${index}.custom.input_schema: ${violation.message}`);
    }
  }
  const choice = isRecord(body.tool_choice) ? body.tool_choice : undefined;
  if (choice && (choice.type === 'any' || choice.type === 'tool') && tools.length === 0)
    return refuse('tool_choice: tool_choice may only be specified while providing tools.');
  if (choice?.type === 'tool' && !names.has(String(choice.name))) return refuse(`tool_choice.name: Tool '${String(choice.name)}' not found in provided tools`);
  const format = outputFormat(body);
  if (constrained && format !== undefined) {
    const violation = checkAnthropicStrictSchema(format.schema);
    if (violation) return refuse(`output_config.format.schema: ${violation.message}`);
  }
  return undefined;
}
