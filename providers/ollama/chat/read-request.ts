import { isRecord } from '../../../core/internal.js';
import { askedTurn, contentText, type AskedMessage, type AskedTool, type AskedTurn, trailingToolResults } from '../../turn.js';
import { readFormat } from '../format.js';

/**
 * What an Ollama `/api/chat` request shows the model: system messages, the conversation (tool
 * calls with `arguments` as objects, tool results named by `tool_name` or `tool_call_id`), the
 * tools in OpenAI's function form, `format` as the response schema. `stream` is on unless the
 * body says `false`: Ollama streams by default.
 */
export function readOllamaChatRequest(body: Record<string, unknown>, index: number): AskedTurn {
  const all = (Array.isArray(body.messages) ? body.messages : []) as Array<Record<string, unknown>>;
  const systemParts = all.filter((message) => message.role === 'system').map((message) => contentText(message.content));
  const system = systemParts.length > 0 ? systemParts.join('\n\n') : undefined;
  const messages: AskedMessage[] = [];
  const names = new Map<string, string>();
  for (const message of all) {
    if (message.role === 'system') continue;
    if (message.role === 'tool') {
      // Ollama's own clients name the tool (`tool_name`); OpenAI-minded ones send `tool_call_id`.
      const id = typeof message.tool_call_id === 'string' ? message.tool_call_id : String(message.tool_name ?? '');
      if (typeof message.tool_name === 'string') names.set(id, message.tool_name);
      messages.push({ role: 'tool', text: contentText(message.content), toolCallId: id });
      continue;
    }
    const asked: AskedMessage = { role: message.role === 'assistant' ? 'assistant' : 'user', text: contentText(message.content) };
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      asked.toolCalls = (message.tool_calls as Array<Record<string, unknown>>).map((call) => {
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
  return askedTurn(body, {
    index,
    provider: 'ollama',
    api: 'ollama-chat',
    system,
    messages,
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
