import type { ModelRequest } from '../../model-call.js';

/**
 * A model call as an Ollama `/api/chat` body, not streamed: system message, the turns (tool
 * calls with their arguments as objects, results named by `tool_name`), tools in function form,
 * the output schema as `format`, `num_predict` for the token limit.
 */
export function renderOllamaChatRequest(request: ModelRequest): Record<string, unknown> {
  const messages: unknown[] = [];
  if (request.system) messages.push({ role: 'system', content: request.system });
  for (const turn of request.turns) {
    if (turn.role === 'user') messages.push({ role: 'user', content: turn.content });
    else if (turn.role === 'tool') messages.push({ role: 'tool', content: turn.content, tool_name: turn.name, tool_call_id: turn.callId });
    else {
      messages.push({
        role: 'assistant',
        content: turn.text ?? '',
        ...(turn.toolCalls.length > 0
          ? {
              tool_calls: turn.toolCalls.map((call, index) => ({
                id: call.id,
                function: { index, name: call.name, arguments: typeof call.args === 'object' && call.args !== null ? call.args : {} },
              })),
            }
          : {}),
      });
    }
  }
  return {
    model: request.model,
    messages,
    stream: false,
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
        }
      : {}),
    ...(request.output ? { format: request.output } : {}),
    options: { num_predict: request.maxTokens },
  };
}
