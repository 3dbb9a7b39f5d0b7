import { indexPath, isRecord, propertyPath } from '../../../core/internal.js';
import {
  askedTurn,
  base64Bytes,
  contentParts,
  contentText,
  functionCallPart,
  sniffedImageType,
  type AskedItem,
  type AskedMessage,
  type AskedPart,
  type AskedTool,
  type AskedTurn,
  trailingToolResults,
} from '../../turn.js';
import { readFormat } from '../format.js';

/**
 * What an Ollama `/api/chat` request shows the model: system messages, the conversation (tool
 * calls with `arguments` as objects, tool results named by `tool_name` or `tool_call_id`), the
 * tools in OpenAI's function form, `format` as the response schema. `stream` is on unless the
 * body says `false`: Ollama streams by default.
 */
export function readOllamaChatRequest(body: Record<string, unknown>, index: number): AskedTurn {
  const all = (Array.isArray(body.messages) ? body.messages : []) as unknown[];
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
    if (role === 'system') {
      systemParts.push(contentText(message.content));
      items.push({ path, role, parts: messageParts(message, path, names) });
      continue;
    }
    if (role === 'tool') {
      // Ollama's own clients name the tool (`tool_name`); OpenAI-minded ones send `tool_call_id`.
      const id = typeof message.tool_call_id === 'string' ? message.tool_call_id : String(message.tool_name ?? '');
      if (typeof message.tool_name === 'string') names.set(id, message.tool_name);
      const parts = messageParts(message, path, names);
      const result: AskedPart = {
        kind: 'tool-result',
        path,
        toolCallId: id,
        idPath: message.tool_call_id === undefined ? undefined : propertyPath(path, 'tool_call_id'),
        name: typeof message.tool_name === 'string' ? message.tool_name : names.get(id),
        isError: false,
        parts,
      };
      items.push({ path, role, parts: [result] });
      messages.push({ role: 'tool', text: contentText(message.content), toolCallId: id, path, parts });
      continue;
    }
    const parts = messageParts(message, path, names);
    items.push({ path, role, parts });
    const asked: AskedMessage = { role: role === 'assistant' ? 'assistant' : 'user', text: contentText(message.content), path, parts };
    if (role === 'assistant' && Array.isArray(message.tool_calls)) {
      asked.toolCalls = (message.tool_calls as unknown[]).map((sent) => {
        const call = isRecord(sent) ? sent : {};
        const fn = isRecord(call.function) ? call.function : {};
        const name = String(fn.name);
        // Ollama's tool calls may carry no id: a result then names the tool it answers.
        const id = typeof call.id === 'string' ? call.id : name;
        names.set(id, name);
        return { id, name, arguments: fn.arguments ?? {} };
      });
    }
    messages.push(asked);
  }
  const system = systemParts.length > 0 ? systemParts.join('\n\n') : undefined;
  return askedTurn(body, {
    index,
    provider: 'ollama',
    api: 'ollama-chat',
    system,
    messages,
    items,
    tools: readOllamaTools(body.tools),
    responseSchema: readFormat(body.format),
    exchanges: trailingToolResults(messages, names),
    stream: body.stream !== false,
  });
}

/** Ollama's tools: OpenAI's function form, `{type:"function", function:{name, description, parameters}}`. */
export function readOllamaTools(tools: unknown): AskedTool[] {
  return (Array.isArray(tools) ? (tools as Array<Record<string, unknown>>) : [])
    .filter((tool) => isRecord(tool) && isRecord(tool.function))
    .map((tool) => {
      const fn = tool.function as Record<string, unknown>;
      return {
        name: String(fn.name),
        description: typeof fn.description === 'string' ? fn.description : undefined,
        parameters: fn.parameters ?? { type: 'object', properties: {} },
        strict: false,
      };
    });
}

/** A message's parts in the order a model reads them: its thinking, its content, its images, its tool calls. */
function messageParts(message: Record<string, unknown>, path: string, names: Map<string, string>): AskedPart[] {
  const parts: AskedPart[] = [];
  if (typeof message.thinking === 'string' && message.thinking !== '')
    parts.push({ kind: 'thinking', path: propertyPath(path, 'thinking'), text: message.thinking });
  parts.push(...contentParts(message.content, propertyPath(path, 'content'), names));
  parts.push(...imageParts(message.images, propertyPath(path, 'images')));
  if (Array.isArray(message.tool_calls))
    message.tool_calls.forEach((call, index) => parts.push(functionCallPart(call, indexPath(propertyPath(path, 'tool_calls'), index), names)));
  return parts;
}

/** Ollama's `images`: base64 without a media type, which their first bytes tell. */
export function imageParts(images: unknown, path: string): AskedPart[] {
  if (!Array.isArray(images)) return [];
  return images.map((image, index): AskedPart => {
    const at = indexPath(path, index);
    if (typeof image !== 'string') return { kind: 'unknown', path: at, type: undefined, value: image };
    const mediaType = sniffedImageType(image);
    return {
      kind: 'image',
      path: at,
      type: 'images',
      source: { path: at, value: image },
      ...(mediaType === undefined ? {} : { mediaType }),
      bytes: base64Bytes(image),
    };
  });
}
