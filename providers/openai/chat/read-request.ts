import { isRecord } from '../../../core/internal.js';
import {
  askedTurn,
  contentText,
  parseArguments,
  type AskedMessage,
  type AskedTool,
  type AskedTurn,
  type ResponseSchema,
  trailingToolResults,
} from '../../turn.js';

/** What a Chat Completions request shows the model: system and developer messages, the conversation, tools, the response schema. */
export function readChatRequest(body: Record<string, unknown>, index: number): AskedTurn {
  const all = body.messages as Array<Record<string, unknown>>;
  const systemParts = all.filter((message) => message.role === 'system' || message.role === 'developer').map((message) => contentText(message.content));
  const system = systemParts.length > 0 ? systemParts.join('\n\n') : undefined;
  const messages: AskedMessage[] = [];
  const names = new Map<string, string>();
  for (const [position, message] of all.entries()) {
    if (message.role === 'system' || message.role === 'developer') continue;
    const path = `.messages[${position}]`;
    if (message.role === 'tool') {
      messages.push({ role: 'tool', text: contentText(message.content), toolCallId: String(message.tool_call_id), path });
      continue;
    }
    const asked: AskedMessage = { role: message.role === 'assistant' ? 'assistant' : 'user', text: contentText(message.content), path };
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      asked.toolCalls = (message.tool_calls as Array<Record<string, unknown>>).map((call) => {
        const fn = isRecord(call.function) ? call.function : {};
        names.set(String(call.id), String(fn.name));
        return { id: String(call.id), name: String(fn.name), arguments: parseArguments(fn.arguments) };
      });
    }
    messages.push(asked);
  }
  const tools: AskedTool[] = (Array.isArray(body.tools) ? (body.tools as Array<Record<string, unknown>>) : [])
    .filter((tool) => isRecord(tool.function))
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
    tools,
    responseSchema,
    exchanges: trailingToolResults(messages, names),
  });
}
