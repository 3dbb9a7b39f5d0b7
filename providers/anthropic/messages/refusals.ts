import { isRecord } from '../../../core/internal.js';
import type { ProviderError } from '../../provider-error.js';
import type { RefusalOptions } from '../../refusal.js';
import { checkAnthropicStrictSchema } from '../../strict-schema.js';
import { blocksOf, outputFormat } from './blocks.js';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/** The 400 Anthropic answers a Messages request with before any model runs, or undefined. */
export function refuseMessagesRequest(body: Record<string, unknown>, options: RefusalOptions): ProviderError | undefined {
  return refuseConversation(body, options, 'messages');
}

/**
 * The 400 Anthropic answers `POST /v1/messages/count_tokens` with: what Messages refuses in the
 * conversation, its tools and its thinking, without `max_tokens` (which counting takes none of).
 */
export function refuseCountTokensRequest(body: Record<string, unknown>, options: RefusalOptions): ProviderError | undefined {
  return refuseConversation(body, options, 'count_tokens');
}

const THINKING_DOCS = 'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';
const THINKING_TYPES = ['adaptive', 'disabled', 'enabled'];

function refuseConversation(body: Record<string, unknown>, options: RefusalOptions, endpoint: 'messages' | 'count_tokens'): ProviderError | undefined {
  const constrained = options.constrained;
  const refuse = (message: string): ProviderError => ({ status: 400, type: 'invalid_request_error', message });
  if (body.model === undefined) return refuse('model: Field required');
  if (endpoint === 'messages') {
    if (body.max_tokens === undefined) return refuse('max_tokens: Field required');
    if (typeof body.max_tokens !== 'number' || body.max_tokens < 1) return refuse('max_tokens: Input should be greater than or equal to 1');
  }
  if (body.messages === undefined) return refuse('messages: Field required');
  if (!Array.isArray(body.messages)) return refuse('messages: Input should be a valid list');
  // A thread `continue` after a `pause_turn` sends no new message: the conversation is the thread's.
  if (body.messages.length === 0) return refuse('messages: at least one message is required');
  if (typeof body.temperature === 'number' && (body.temperature < 0 || body.temperature > 1)) {
    return refuse(`temperature: Input should be ${body.temperature < 0 ? 'greater than or equal to 0' : 'less than or equal to 1'}`);
  }
  const thinkingRefusal = refuseThinkingParameters(body, endpoint);
  if (thinkingRefusal !== undefined) return refuse(thinkingRefusal);
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
  if (thinks(body)) {
    const dropped = droppedThinking(messages as Array<Record<string, unknown>>);
    if (dropped !== undefined) return refuse(dropped);
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

/** Whether the request asks the model to think first (`thinking: {type: "enabled" | "adaptive"}`). */
export function thinks(body: Record<string, unknown>): boolean {
  return isRecord(body.thinking) && (body.thinking.type === 'enabled' || body.thinking.type === 'adaptive');
}

// What Anthropic answers a thinking config it cannot run: the budget's bounds, and the sampling
// parameters and forced tool use thinking cannot be combined with.
function refuseThinkingParameters(body: Record<string, unknown>, endpoint: 'messages' | 'count_tokens'): string | undefined {
  if (body.thinking === undefined || body.thinking === null) return undefined;
  if (!isRecord(body.thinking)) return 'thinking: Input should be a valid dictionary or object to extract fields from';
  const type = body.thinking.type;
  if (!THINKING_TYPES.includes(String(type)))
    return `thinking: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: ${THINKING_TYPES.map((name) => `'${name}'`).join(', ')}`;
  if (type === 'enabled') {
    const budget = body.thinking.budget_tokens;
    if (budget === undefined) return 'thinking.enabled.budget_tokens: Field required';
    if (typeof budget !== 'number' || !Number.isInteger(budget)) return 'thinking.enabled.budget_tokens: Input should be a valid integer';
    if (budget < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (endpoint === 'messages' && typeof body.max_tokens === 'number' && budget >= body.max_tokens)
      return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. ${THINKING_DOCS}#max-tokens-and-context-window-size`;
  }
  if (!thinks(body)) return undefined;
  const considerations = `${THINKING_DOCS}#important-considerations-when-using-extended-thinking`;
  if (typeof body.temperature === 'number' && body.temperature !== 1)
    return `\`temperature\` may only be set to 1 when thinking is enabled or in adaptive mode. ${considerations}`;
  if (body.top_k !== undefined && body.top_k !== null) return `\`top_k\` must be unset when thinking is enabled. ${considerations}`;
  const choice = isRecord(body.tool_choice) ? body.tool_choice.type : undefined;
  if (choice === 'any' || choice === 'tool') return 'Thinking may not be enabled when tool_choice forces tool use.';
  return undefined;
}

// With thinking on, the assistant turn a tool loop continues (the one whose tool_use the last
// tool_result answers) must be sent back starting with the thinking block it was answered with.
function droppedThinking(messages: Array<Record<string, unknown>>): string | undefined {
  const last = messages.length - 1;
  if (messages[last]?.role !== 'user' || !blocksOf(messages[last]!.content).some((block) => block.type === 'tool_result')) return undefined;
  const assistant = messages[last - 1];
  if (assistant?.role !== 'assistant') return undefined;
  const first = blocksOf(assistant.content)[0];
  if (first === undefined || first.type === 'thinking' || first.type === 'redacted_thinking') return undefined;
  return (
    `messages.${last - 1}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first.type)}\`. ` +
    'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). ' +
    'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. ' +
    THINKING_DOCS
  );
}
