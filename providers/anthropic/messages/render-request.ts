import type { ModelRequest } from '../../model-call.js';

/** A model call as a Messages body: the system prompt, the turns (a turn's tool results in one user message), tools. */
export function renderMessagesRequest(request: ModelRequest): Record<string, unknown> {
  const messages: Array<{ role: string; content: unknown[] }> = [];
  for (const turn of request.turns) {
    if (turn.role === 'user') messages.push({ role: 'user', content: [{ type: 'text', text: turn.content }] });
    else if (turn.role === 'assistant') {
      const content: unknown[] = [];
      if (turn.text) content.push({ type: 'text', text: turn.text });
      for (const call of turn.toolCalls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.args });
      messages.push({ role: 'assistant', content });
    } else {
      // Results of one turn's calls travel together in one user message.
      const block = { type: 'tool_result', tool_use_id: turn.callId, content: turn.content, ...(turn.isError ? { is_error: true } : {}) };
      const last = messages[messages.length - 1];
      if (last !== undefined && last.role === 'user' && last.content.every((part) => (part as { type: string }).type === 'tool_result'))
        last.content.push(block);
      else messages.push({ role: 'user', content: [block] });
    }
  }
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    ...(request.system ? { system: request.system } : {}),
    messages,
    ...(request.tools.length > 0
      ? { tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })) }
      : {}),
  };
}
