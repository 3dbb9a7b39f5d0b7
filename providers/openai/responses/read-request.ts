import { indexPath, isRecord, propertyPath } from '../../../core/internal.js';
import {
  askedTurn,
  contentParts,
  contentText,
  parseArguments,
  type AskedItem,
  type AskedMessage,
  type AskedPart,
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
  const items: AskedItem[] = [];
  const names = new Map<string, string>();
  if (body.instructions !== undefined && body.instructions !== null)
    items.push({ path: '.instructions', role: 'system', parts: contentParts(body.instructions, '.instructions', names) });
  // A string `input` is one user message: the path is `.input` itself.
  const input = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? (body.input as unknown[]) : [];
  for (const [position, item] of input.entries()) {
    const path = typeof body.input === 'string' ? '.input' : indexPath('.input', position);
    if (typeof item === 'string') {
      const parts = contentParts(item, path, names);
      items.push({ path, role: 'user', parts });
      // A bare string is a message only as the whole input; inside the list it is kept as an item, not read as a message.
      if (typeof body.input === 'string') messages.push({ role: 'user', text: item, path, parts });
      continue;
    }
    if (!isRecord(item)) {
      items.push({ path, role: undefined, parts: [{ kind: 'unknown', path, type: undefined, value: item }] });
      continue;
    }
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const argumentsName = item.type === 'custom_tool_call' ? 'input' : 'arguments';
      const id = typeof item.call_id === 'string' ? item.call_id : undefined;
      if (id !== undefined && typeof item.name === 'string') names.set(id, item.name);
      const part = {
        kind: 'tool-call' as const,
        path,
        id,
        name: String(item.name),
        arguments: item[argumentsName],
        paths: {
          id: item.call_id === undefined ? undefined : propertyPath(path, 'call_id'),
          name: propertyPath(path, 'name'),
          arguments: propertyPath(path, argumentsName),
        },
      };
      items.push({ path, role: 'assistant', type: item.type, parts: [part] });
      if (item.type === 'custom_tool_call') continue;
      const call = { id: String(item.call_id), name: String(item.name), arguments: parseArguments(item.arguments) };
      names.set(call.id, call.name);
      const last = messages.at(-1);
      if (last?.role === 'assistant') {
        (last.toolCalls ??= []).push(call);
        last.parts = [...last.parts, part];
      } else messages.push({ role: 'assistant', text: '', toolCalls: [call], path, parts: [part] });
      continue;
    }
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      const id = typeof item.call_id === 'string' ? item.call_id : undefined;
      const parts = contentParts(item.output, propertyPath(path, 'output'), names);
      const idPath = item.call_id === undefined ? undefined : propertyPath(path, 'call_id');
      items.push({
        path,
        role: 'tool',
        type: item.type,
        parts: [{ kind: 'tool-result', path, toolCallId: id, idPath, name: id === undefined ? undefined : names.get(id), isError: false, parts }],
      });
      if (item.type === 'function_call_output')
        messages.push({
          role: 'tool',
          text: typeof item.output === 'string' ? item.output : contentText(item.output),
          toolCallId: String(item.call_id),
          path,
          parts,
        });
      continue;
    }
    // A reasoning item is the model's thinking; one sent back with nothing to read (by id alone) stays whole.
    const reasoning = item.type === 'reasoning' ? reasoningParts(item, path) : [];
    if (reasoning.length > 0) {
      items.push({ path, role: 'assistant', type: 'reasoning', parts: reasoning });
      continue;
    }
    if (typeof item.role !== 'string' || (item.type !== undefined && item.type !== 'message')) {
      items.push({ path, role: undefined, parts: [{ kind: 'unknown', path, type: typeof item.type === 'string' ? item.type : undefined, value: item }] });
      continue;
    }
    const parts = contentParts(item.content, propertyPath(path, 'content'), names);
    items.push({ path, role: item.role, ...(typeof item.type === 'string' ? { type: item.type } : {}), parts });
    if (item.role === 'system' || item.role === 'developer') {
      systemParts.push(contentText(item.content));
      continue;
    }
    if (item.role === 'user' || item.role === 'assistant') messages.push({ role: item.role, text: contentText(item.content), path, parts });
  }
  const system = systemParts.length > 0 ? systemParts.join('\n\n') : undefined;
  const tools: AskedTool[] = (Array.isArray(body.tools) ? (body.tools as Array<Record<string, unknown>>) : [])
    .filter((tool) => isRecord(tool) && tool.type === 'function')
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
  return askedTurn(body, { index, provider: 'openai', api: 'openai-responses', system, messages, items, tools, responseSchema, exchanges });
}

/**
 * A `reasoning` item sent back: its summary (`summary_text`) and content (`reasoning_text`) as
 * thinking, its `encrypted_content` as redacted thinking; anything else in them `unknown`.
 */
function reasoningParts(item: Record<string, unknown>, path: string): AskedPart[] {
  const parts: AskedPart[] = [];
  for (const [field, type] of [
    ['summary', 'summary_text'],
    ['content', 'reasoning_text'],
  ] as const) {
    const list = item[field];
    if (!Array.isArray(list)) continue;
    list.forEach((entry, index) => {
      const at = indexPath(propertyPath(path, field), index);
      if (isRecord(entry) && entry.type === type && typeof entry.text === 'string')
        parts.push({ kind: 'thinking', path: propertyPath(at, 'text'), text: entry.text });
      else parts.push({ kind: 'unknown', path: at, type: isRecord(entry) && typeof entry.type === 'string' ? entry.type : undefined, value: entry });
    });
  }
  if (typeof item.encrypted_content === 'string')
    parts.push({ kind: 'redacted-thinking', path, data: { path: propertyPath(path, 'encrypted_content'), value: item.encrypted_content } });
  return parts;
}
