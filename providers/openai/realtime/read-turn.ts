import { indexPath, isRecord, propertyPath } from '../../../core/internal.js';
import {
  askedTurn,
  base64Bytes,
  contentParts,
  contentText,
  parseArguments,
  trailingToolResults,
  type AskedItem,
  type AskedMessage,
  type AskedPart,
  type AskedTool,
  type AskedTurn,
} from '../../turn.js';

/**
 * What one Realtime response is asked with, as one value (a Realtime session has no request body
 * per turn): the model of the session's URL, the session's configuration, the parameters of the
 * `response.create` that asked (`response`), and the conversation items the response sees (the
 * session's conversation, or the response's own `input`), in order. The paths of the turn read
 * from it point into it (`.items[2].content[0].text`, `.session.instructions`).
 */
export interface RealtimeTurnRequest {
  model: string;
  session: Record<string, unknown>;
  response: Record<string, unknown>;
  items: unknown[];
}

/**
 * What a Realtime response shows the model: the instructions (the response's, else the
 * session's) and system message items as the system prompt, the conversation items, the tools
 * and tool choice (the response's, else the session's). Audio a user sent is an `input_audio`
 * part with its size (its `transcript` is not shown to the model, as the API says); audio the
 * model sent back is its transcript.
 */
export function readRealtimeTurn(request: RealtimeTurnRequest, index: number): AskedTurn {
  const body = request as unknown as Record<string, unknown>;
  const { session, response } = request;
  const systemParts: string[] = [];
  const items: AskedItem[] = [];
  const messages: AskedMessage[] = [];
  const names = new Map<string, string>();
  const instructionsAt = typeof response.instructions === 'string' ? '.response' : '.session';
  const instructions = typeof response.instructions === 'string' ? response.instructions : session.instructions;
  if (typeof instructions === 'string' && instructions !== '') {
    systemParts.push(instructions);
    const path = propertyPath(instructionsAt, 'instructions');
    items.push({ path, role: 'system', parts: [{ kind: 'text', path, text: instructions }] });
  }
  for (const [position, item] of request.items.entries()) {
    const path = indexPath('.items', position);
    if (!isRecord(item)) {
      items.push({ path, role: undefined, parts: [{ kind: 'unknown', path, type: undefined, value: item }] });
      continue;
    }
    if (item.type === 'function_call') {
      const id = typeof item.call_id === 'string' ? item.call_id : undefined;
      if (id !== undefined) names.set(id, String(item.name));
      const part: AskedPart = {
        kind: 'tool-call',
        path,
        id,
        name: String(item.name),
        arguments: item.arguments,
        paths: {
          id: id === undefined ? undefined : propertyPath(path, 'call_id'),
          name: propertyPath(path, 'name'),
          arguments: propertyPath(path, 'arguments'),
        },
      };
      items.push({ path, role: 'assistant', type: 'function_call', parts: [part] });
      const call = { id: String(item.call_id), name: String(item.name), arguments: parseArguments(item.arguments) };
      const last = messages.at(-1);
      if (last?.role === 'assistant') {
        (last.toolCalls ??= []).push(call);
        last.parts = [...last.parts, part];
      } else messages.push({ role: 'assistant', text: '', toolCalls: [call], path, parts: [part] });
      continue;
    }
    if (item.type === 'function_call_output') {
      const id = typeof item.call_id === 'string' ? item.call_id : undefined;
      const parts = contentParts(item.output, propertyPath(path, 'output'), names);
      items.push({
        path,
        role: 'tool',
        type: 'function_call_output',
        parts: [
          {
            kind: 'tool-result',
            path,
            toolCallId: id,
            idPath: id === undefined ? undefined : propertyPath(path, 'call_id'),
            name: id === undefined ? undefined : names.get(id),
            isError: false,
            parts,
          },
        ],
      });
      messages.push({
        role: 'tool',
        text: typeof item.output === 'string' ? item.output : contentText(item.output),
        toolCallId: String(item.call_id),
        path,
        parts,
      });
      continue;
    }
    if (item.type !== 'message' || typeof item.role !== 'string') {
      items.push({ path, role: undefined, parts: [{ kind: 'unknown', path, type: typeof item.type === 'string' ? item.type : undefined, value: item }] });
      continue;
    }
    const parts = messageParts(item.content, propertyPath(path, 'content'), names);
    items.push({ path, role: item.role, type: 'message', parts });
    const text = parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
    if (item.role === 'system') systemParts.push(text);
    else if (item.role === 'user' || item.role === 'assistant') messages.push({ role: item.role, text, path, parts });
  }
  const offered = Array.isArray(response.tools) ? response.tools : Array.isArray(session.tools) ? session.tools : [];
  const tools: AskedTool[] = offered
    .filter((tool): tool is Record<string, unknown> => isRecord(tool) && tool.type === 'function')
    .map((tool) => ({
      name: String(tool.name),
      description: typeof tool.description === 'string' ? tool.description : undefined,
      parameters: tool.parameters ?? { type: 'object', properties: {} },
      strict: false,
    }));
  return askedTurn(body, {
    index,
    provider: 'openai',
    api: 'openai-realtime',
    system: systemParts.length > 0 ? systemParts.join('\n\n') : undefined,
    messages,
    items,
    tools,
    toolChoice: response.tool_choice ?? session.tool_choice,
    responseSchema: undefined,
    exchanges: trailingToolResults(messages, names),
    // A Realtime response always arrives as events.
    stream: true,
  });
}

/**
 * A message item's content: text parts as any API's, audio the user sent as an `input_audio`
 * file part (its size, when its bytes were sent), audio the model sent as its transcript.
 */
function messageParts(content: unknown, path: string, names: Map<string, string>): AskedPart[] {
  const parts = contentParts(content, path, names);
  if (!Array.isArray(content)) return parts;
  return parts.map((part, position) => {
    const block = content[position];
    if (!isRecord(block)) return part;
    const at = indexPath(path, position);
    if (block.type === 'input_audio')
      return {
        kind: 'file',
        path: at,
        type: 'input_audio',
        source: { path: propertyPath(at, 'audio'), value: block.audio },
        ...(typeof block.audio === 'string' ? { bytes: base64Bytes(block.audio) } : {}),
      };
    if (block.type === 'output_audio' && typeof block.transcript === 'string')
      return { kind: 'text', path: propertyPath(at, 'transcript'), text: block.transcript };
    return part;
  });
}
