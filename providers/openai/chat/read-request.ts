import { indexPath, isRecord, propertyPath } from '../../../core/internal.js';
import {
  askedTurn,
  contentParts,
  contentText,
  functionCallPart,
  parseArguments,
  type AskedItem,
  type AskedMessage,
  type AskedPart,
  type AskedTool,
  type AskedTurn,
  type ResponseSchema,
  trailingToolResults,
} from '../../turn.js';

/** What a Chat Completions request shows the model: system and developer messages, the conversation, tools, the response schema. */
export function readChatRequest(body: Record<string, unknown>, index: number): AskedTurn {
  const all = body.messages as unknown[];
  const systemParts: string[] = [];
  const messages: AskedMessage[] = [];
  const items: AskedItem[] = [];
  const names = new Map<string, string>();
  for (const [position, message] of all.entries()) {
    const path = indexPath('.messages', position);
    if (!isRecord(message)) {
      items.push({ path, role: undefined, parts: [{ kind: 'unknown', path, type: undefined, value: message }] });
      continue;
    }
    const role = typeof message.role === 'string' ? message.role : undefined;
    const content = contentParts(message.content, propertyPath(path, 'content'), names);
    if (role === 'system' || role === 'developer') {
      systemParts.push(contentText(message.content));
      items.push({ path, role, parts: content });
      continue;
    }
    if (role === 'tool' || role === 'function') {
      // A tool message is the result itself; a legacy `function` message names its function.
      const id = typeof message.tool_call_id === 'string' ? message.tool_call_id : undefined;
      const name = typeof message.name === 'string' ? message.name : id === undefined ? undefined : names.get(id);
      const idPath = message.tool_call_id === undefined ? undefined : propertyPath(path, 'tool_call_id');
      items.push({ path, role, parts: [{ kind: 'tool-result', path, toolCallId: id, idPath, name, isError: false, parts: content }] });
    } else {
      const parts: AskedPart[] = [...content];
      if (typeof message.refusal === 'string') parts.push({ kind: 'refusal', path: propertyPath(path, 'refusal'), text: message.refusal });
      if (Array.isArray(message.tool_calls))
        message.tool_calls.forEach((call, callIndex) => parts.push(functionCallPart(call, indexPath(propertyPath(path, 'tool_calls'), callIndex), names)));
      items.push({ path, role, parts });
    }
    if (role === 'tool') {
      messages.push({ role: 'tool', text: contentText(message.content), toolCallId: String(message.tool_call_id), path, parts: content });
      continue;
    }
    const asked: AskedMessage = { role: role === 'assistant' ? 'assistant' : 'user', text: contentText(message.content), path, parts: items.at(-1)!.parts };
    if (role === 'assistant' && Array.isArray(message.tool_calls)) {
      asked.toolCalls = (message.tool_calls as unknown[]).map((sent) => {
        const call = isRecord(sent) ? sent : {};
        const fn = isRecord(call.function) ? call.function : {};
        names.set(String(call.id), String(fn.name));
        return { id: String(call.id), name: String(fn.name), arguments: parseArguments(fn.arguments) };
      });
    }
    messages.push(asked);
  }
  const system = systemParts.length > 0 ? systemParts.join('\n\n') : undefined;
  const tools: AskedTool[] = (Array.isArray(body.tools) ? (body.tools as Array<Record<string, unknown>>) : [])
    .filter((tool) => isRecord(tool) && isRecord(tool.function))
    .map((tool) => {
      const fn = tool.function as Record<string, unknown>;
      return {
        name: String(fn.name),
        description: typeof fn.description === 'string' ? fn.description : undefined,
        parameters: fn.parameters ?? { type: 'object', properties: {} },
        strict: fn.strict === true,
      };
    });
  const format = isRecord(body.response_format) ? body.response_format : undefined;
  let responseSchema: ResponseSchema | undefined;
  if (format?.type === 'json_schema' && isRecord(format.json_schema)) {
    responseSchema = {
      source: 'response_format',
      name: typeof format.json_schema.name === 'string' ? format.json_schema.name : undefined,
      schema: format.json_schema.schema ?? {},
      strict: format.json_schema.strict === true,
    };
  }
  return askedTurn(body, {
    index,
    provider: 'openai',
    api: 'openai-chat',
    system,
    messages,
    items,
    tools,
    responseSchema,
    exchanges: trailingToolResults(messages, names),
  });
}
