import { indexPath, isRecord, propertyPath } from '../../../core/internal.js';
import {
  askedTurn,
  contentParts,
  contentText,
  type AskedItem,
  type AskedMessage,
  type AskedTool,
  type AskedTurn,
  type ResponseSchema,
  type ToolExchange,
} from '../../turn.js';
import { blocksOf, outputFormat } from './blocks.js';

/** What a Messages request shows the model: the system prompt, the conversation, tools, the response schema. */
export function readMessagesRequest(body: Record<string, unknown>, index: number): AskedTurn {
  const system = typeof body.system === 'string' ? body.system : Array.isArray(body.system) ? contentText(body.system) : undefined;
  const messages: AskedMessage[] = [];
  const items: AskedItem[] = [];
  const names = new Map<string, string>();
  if (body.system !== undefined) items.push({ path: '.system', role: 'system', parts: contentParts(body.system, '.system', names) });
  for (const [position, message] of (body.messages as unknown[]).entries()) {
    const path = indexPath('.messages', position);
    if (!isRecord(message)) {
      items.push({ path, role: undefined, parts: [{ kind: 'unknown', path, type: undefined, value: message }] });
      continue;
    }
    const parts = contentParts(message.content, propertyPath(path, 'content'), names);
    items.push({ path, role: typeof message.role === 'string' ? message.role : undefined, parts });
    const blocks = blocksOf(message.content);
    const text = blocks
      .filter((block) => block.type === 'text')
      .map((block) => String(block.text))
      .join('');
    if (message.role === 'assistant') {
      const uses = blocks
        .filter((block) => block.type === 'tool_use')
        .map((block) => ({ id: String(block.id), name: String(block.name), arguments: block.input }));
      for (const use of uses) names.set(use.id, use.name);
      messages.push(uses.length > 0 ? { role: 'assistant', text, toolCalls: uses, path, parts } : { role: 'assistant', text, path, parts });
      continue;
    }
    // Each tool result is a block of the user message; a string content has no blocks to point at.
    for (const part of parts) {
      if (part.kind !== 'tool-result') continue;
      // blocksOf drops what is not a block, so the part's path is the block's place in the content as sent.
      const block = (message.content as unknown[])[Number(/\[(\d+)\]$/.exec(part.path)![1])] as Record<string, unknown>;
      messages.push({ role: 'tool', text: contentText(block.content), toolCallId: String(block.tool_use_id), path: part.path, parts: part.parts });
    }
    const said = parts.filter((part) => part.kind !== 'tool-result');
    if (text !== '' || !blocks.some((block) => block.type === 'tool_result')) messages.push({ role: 'user', text, path, parts: said });
  }
  const tools: AskedTool[] = (Array.isArray(body.tools) ? (body.tools as Array<Record<string, unknown>>) : [])
    .filter((tool) => isRecord(tool) && (tool.type === undefined || tool.type === 'custom'))
    .map((tool) => ({
      name: String(tool.name),
      description: typeof tool.description === 'string' ? tool.description : undefined,
      parameters: tool.input_schema,
      strict: tool.strict === true,
    }));
  const last = (body.messages as unknown[]).at(-1);
  const exchanges: ToolExchange[] =
    isRecord(last) && last.role === 'user'
      ? blocksOf(last.content)
          .filter((block) => block.type === 'tool_result')
          .map((block) => ({
            toolCallId: String(block.tool_use_id),
            name: names.get(String(block.tool_use_id)),
            result: contentText(block.content),
            isError: block.is_error === true,
          }))
      : [];
  const format = outputFormat(body);
  const responseSchema: ResponseSchema | undefined = format
    ? { source: 'output_config.format', name: undefined, schema: format.schema, strict: true }
    : undefined;
  return askedTurn(body, { index, provider: 'anthropic', api: 'anthropic-messages', system, messages, items, tools, responseSchema, exchanges });
}
