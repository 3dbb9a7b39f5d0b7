import { indexPath, isRecord, propertyPath } from '../../../core/internal.js';
import { askedTurn, type AskedItem, type AskedMessage, type AskedTool, type AskedTurn, type ResponseSchema, type ToolExchange } from '../../turn.js';
import type { Route, TurnApi } from '../../vocabulary.js';
import { blocksOf, blocksText, converseBlockPart, systemText, toolResultOf, toolUseOf } from './content.js';

/**
 * What a Converse (or ConverseStream) request shows the model: `system` blocks, `messages` of
 * content blocks (a `toolUse` is a call, a `toolResult` in a user message a tool result),
 * `toolConfig.tools[].toolSpec` and `toolConfig.toolChoice`, and the schema
 * `outputConfig.textFormat` asks for. The model and whether it streams come from the path
 * (`/model/{modelId}/converse-stream`).
 */
export function readConverseRequest(body: Record<string, unknown>, index: number, route?: Route): AskedTurn {
  return readConverseShaped(body, index, route, 'bedrock-converse');
}

/**
 * A body in Converse's shape read as `api`'s: Converse itself, or an Amazon Nova InvokeModel body,
 * whose `system`, `messages` and `toolConfig` are Converse's (its `inferenceConfig` names differ,
 * which no turn reads).
 */
export function readConverseShaped(body: Record<string, unknown>, index: number, route: Route | undefined, api: TurnApi): AskedTurn {
  if (!Array.isArray(body.messages)) throw new TypeError('a Converse body has a list of messages');
  const messages: AskedMessage[] = [];
  const items: AskedItem[] = [];
  const names = new Map<string, string>();
  if (body.system !== undefined) {
    const parts = Array.isArray(body.system)
      ? body.system.map((block, position) => converseBlockPart(block, indexPath('.system', position), names))
      : [{ kind: 'unknown' as const, path: '.system', type: undefined, value: body.system }];
    items.push({ path: '.system', role: 'system', parts });
  }
  for (const [position, message] of body.messages.entries()) {
    const path = indexPath('.messages', position);
    if (!isRecord(message)) {
      items.push({ path, role: undefined, parts: [{ kind: 'unknown', path, type: undefined, value: message }] });
      continue;
    }
    const contentPath = propertyPath(path, 'content');
    const parts = Array.isArray(message.content)
      ? message.content.map((block, index) => converseBlockPart(block, indexPath(contentPath, index), names))
      : message.content === undefined
        ? []
        : [{ kind: 'unknown' as const, path: contentPath, type: undefined, value: message.content }];
    items.push({ path, role: typeof message.role === 'string' ? message.role : undefined, parts });
    const blocks = blocksOf(message.content);
    const text = parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
    if (message.role === 'assistant') {
      const uses = blocks.map(toolUseOf).filter((use) => use !== undefined);
      const toolCalls = uses.map((use) => ({ id: use.id, name: use.name, arguments: use.input }));
      messages.push(toolCalls.length > 0 ? { role: 'assistant', text, toolCalls, path, parts } : { role: 'assistant', text, path, parts });
      continue;
    }
    // Each tool result is a block of the user message.
    for (const part of parts) {
      if (part.kind !== 'tool-result') continue;
      const result = toolResultOf(blocks[Number(/\[(\d+)\]$/.exec(part.path)![1])] ?? {});
      messages.push({ role: 'tool', text: blocksText(result?.content), toolCallId: part.toolCallId!, path: part.path, parts: part.parts });
    }
    const said = parts.filter((part) => part.kind !== 'tool-result');
    if (text !== '' || said.length === parts.length) messages.push({ role: 'user', text, path, parts: said });
  }
  const toolConfig = isRecord(body.toolConfig) ? body.toolConfig : undefined;
  const tools: AskedTool[] = (Array.isArray(toolConfig?.tools) ? toolConfig.tools : [])
    .map((tool) => (isRecord(tool) && isRecord(tool.toolSpec) ? tool.toolSpec : undefined))
    .filter((spec) => spec !== undefined)
    .map((spec) => ({
      name: String(spec.name),
      description: typeof spec.description === 'string' ? spec.description : undefined,
      parameters: isRecord(spec.inputSchema) ? spec.inputSchema.json : undefined,
      strict: spec.strict === true,
    }));
  const last = body.messages.at(-1);
  const exchanges: ToolExchange[] =
    isRecord(last) && last.role === 'user'
      ? blocksOf(last.content)
          .map(toolResultOf)
          .filter((result) => result !== undefined)
          .map((result) => ({ toolCallId: result.id, name: names.get(result.id), result: blocksText(result.content), isError: result.isError }))
      : [];
  return askedTurn(body, {
    index,
    provider: 'bedrock',
    api,
    model: route?.model ?? (typeof body.modelId === 'string' ? body.modelId : 'unknown'),
    stream: route?.stream === true,
    toolChoice: toolConfig?.toolChoice,
    system: systemText(body.system),
    messages,
    items,
    tools,
    responseSchema: converseResponseSchema(body),
    exchanges,
  });
}

/**
 * The schema `outputConfig.textFormat` asks the answer to follow (`{type: "json_schema",
 * structure: {jsonSchema: {schema, name}}}`, the schema sent as a JSON string), or undefined.
 */
export function converseResponseSchema(body: Record<string, unknown>): ResponseSchema | undefined {
  const format = isRecord(body.outputConfig) && isRecord(body.outputConfig.textFormat) ? body.outputConfig.textFormat : undefined;
  const definition = isRecord(format?.structure) && isRecord(format.structure.jsonSchema) ? format.structure.jsonSchema : undefined;
  if (format?.type !== 'json_schema' || definition === undefined) return undefined;
  let schema: unknown = definition.schema;
  if (typeof schema === 'string') {
    try {
      schema = JSON.parse(schema) as unknown;
    } catch {
      // A schema that is not JSON is refused before any turn; read alone, it stays as sent.
    }
  }
  return { source: 'outputConfig.textFormat', name: typeof definition.name === 'string' ? definition.name : undefined, schema, strict: true };
}
