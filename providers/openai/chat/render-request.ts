import type { ModelRequest } from '../../model-call.js';

/** A model call as a Chat Completions body: system message, the turns, tools, a strict JSON Schema response format. */
export function renderChatRequest(request: ModelRequest): Record<string, unknown> {
  const messages: unknown[] = [];
  if (request.system) messages.push({ role: 'system', content: request.system });
  for (const turn of request.turns) {
    if (turn.role === 'user') messages.push({ role: 'user', content: turn.content });
    else if (turn.role === 'tool') messages.push({ role: 'tool', tool_call_id: turn.callId, content: turn.content });
    else {
      messages.push({
        role: 'assistant',
        content: turn.text,
        ...(turn.toolCalls.length > 0
          ? {
              tool_calls: turn.toolCalls.map((call) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args) },
              })),
            }
          : {}),
      });
    }
  }
  return {
    model: request.model,
    messages,
    max_completion_tokens: request.maxTokens,
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
        }
      : {}),
    ...(request.output ? { response_format: { type: 'json_schema', json_schema: { name: 'output', strict: true, schema: request.output } } } : {}),
  };
}
