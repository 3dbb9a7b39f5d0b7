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

/** What a Responses request shows the model: instructions, the input items, tools, the response schema. */
export function readResponsesRequest(body: Record<string, unknown>, index: number): AskedTurn {
  const systemParts: string[] = [];
  if (typeof body.instructions === 'string') systemParts.push(body.instructions);
  const messages: AskedMessage[] = [];
  const names = new Map<string, string>();
  const items = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? (body.input as unknown[]) : [];
  for (const [position, item] of items.entries()) {
    if (!isRecord(item)) continue;
    // A string `input` is one user message: the path is `.input` itself.
    const path = typeof body.input === 'string' ? '.input' : `.input[${position}]`;
    if (item.type === 'function_call') {
      const call = { id: String(item.call_id), name: String(item.name), arguments: parseArguments(item.arguments) };
      names.set(call.id, call.name);
      const last = messages.at(-1);
      if (last?.role === 'assistant') (last.toolCalls ??= []).push(call);
      else messages.push({ role: 'assistant', text: '', toolCalls: [call], path });
      continue;
    }
    if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', text: typeof item.output === 'string' ? item.output : contentText(item.output), toolCallId: String(item.call_id), path });
      continue;
    }
    if (item.role === 'system' || item.role === 'developer') {
      systemParts.push(contentText(item.content));
      continue;
    }
    if (item.role === 'user' || item.role === 'assistant') messages.push({ role: item.role, text: contentText(item.content), path });
  }
  const system = systemParts.length > 0 ? systemParts.join('\n\n') : undefined;
  const tools: AskedTool[] = (Array.isArray(body.tools) ? (body.tools as Array<Record<string, unknown>>) : [])
    .filter((tool) => tool.type === 'function')
    .map((tool) => ({
      name: String(tool.name),
      description: typeof tool.description === 'string' ? tool.description : undefined,
      parameters: tool.parameters ?? { type: 'object', properties: {} },
      strict: tool.strict === true,
    }));
  const format = isRecord(body.text) && isRecord(body.text.format) ? body.text.format : undefined;
  let responseSchema: ResponseSchema | undefined;
  if (format?.type === 'json_schema')
    responseSchema = {
      source: 'text.format',
      name: typeof format.name === 'string' ? format.name : undefined,
      schema: format.schema ?? {},
      strict: format.strict === true,
    };
  const exchanges = trailingToolResults(messages, names);
  return askedTurn(body, { index, provider: 'openai', api: 'openai-responses', system, messages, tools, responseSchema, exchanges });
}
