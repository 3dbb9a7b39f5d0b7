import type { ModelRequest } from '../../model-call.js';

/**
 * A model call as a Responses API body: the system prompt as `instructions`, the turns as input
 * items (a user or assistant message, each tool call as a `function_call` item and each result as
 * its `function_call_output`), the tools as function tools, and a JSON answer's schema as a strict
 * `text.format`. `store: false`: the runtime sends the whole conversation every turn (its journal
 * is the state), so nothing is left on the provider's side to resolve or to leak.
 */
export function renderResponsesRequest(request: ModelRequest): Record<string, unknown> {
  const input: unknown[] = [];
  for (const turn of request.turns) {
    if (turn.role === 'user') input.push({ role: 'user', content: turn.content });
    else if (turn.role === 'tool') input.push({ type: 'function_call_output', call_id: turn.callId, output: turn.content });
    else {
      if (turn.text) input.push({ role: 'assistant', content: turn.text });
      for (const call of turn.toolCalls) {
        input.push({
          type: 'function_call',
          call_id: call.id,
          name: call.name,
          arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args),
        });
      }
    }
  }
  return {
    model: request.model,
    ...(request.system ? { instructions: request.system } : {}),
    input,
    max_output_tokens: request.maxTokens,
    store: false,
    // Function tools are strict by default on this API; the runtime checks arguments itself, as
    // it does on Chat Completions, so a tool's schema need not be written in strict mode's subset.
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function',
            name: tool.name,
            description: tool.description,
            parameters: tool.parameters,
            strict: false,
          })),
        }
      : {}),
    ...(request.output ? { text: { format: { type: 'json_schema', name: 'output', strict: true, schema: request.output } } } : {}),
  };
}
