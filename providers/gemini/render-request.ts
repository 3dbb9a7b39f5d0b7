import type { ModelRequest } from '../model-call.js';

/**
 * A model call as a `generateContent` body (the model goes in the path): the system
 * instruction, the turns as `contents` (the assistant is `model`; one turn's tool results travel
 * together as function responses in one user content), the tools as function declarations with
 * JSON Schema parameters, and a JSON answer's schema as `responseJsonSchema`.
 */
export function renderGenerateRequest(request: ModelRequest): Record<string, unknown> {
  const contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> = [];
  for (const turn of request.turns) {
    if (turn.role === 'user') contents.push({ role: 'user', parts: [{ text: turn.content }] });
    else if (turn.role === 'assistant') {
      const parts: Array<Record<string, unknown>> = [];
      if (turn.text) parts.push({ text: turn.text });
      for (const call of turn.toolCalls) parts.push({ functionCall: { ...idOf(call.id), name: call.name, args: call.args } });
      contents.push({ role: 'model', parts });
    } else {
      const part = { functionResponse: { ...idOf(turn.callId), name: turn.name, response: turn.isError ? { error: turn.content } : { result: turn.content } } };
      const last = contents.at(-1);
      if (last !== undefined && last.role === 'user' && last.parts.every((candidate) => candidate.functionResponse !== undefined)) last.parts.push(part);
      else contents.push({ role: 'user', parts: [part] });
    }
  }
  return {
    contents,
    ...(request.system ? { systemInstruction: { parts: [{ text: request.system }] } } : {}),
    ...(request.tools.length > 0
      ? {
          tools: [
            { functionDeclarations: request.tools.map((tool) => ({ name: tool.name, description: tool.description, parametersJsonSchema: tool.parameters })) },
          ],
        }
      : {}),
    generationConfig: {
      maxOutputTokens: request.maxTokens,
      ...(request.output ? { responseMimeType: 'application/json', responseJsonSchema: request.output } : {}),
    },
  };
}

/** The id a call had from Gemini; an id the answer reader made up for a call without one is not sent back. */
function idOf(id: string): { id?: string } {
  return id.startsWith(UNNAMED_CALL_PREFIX) ? {} : { id };
}

/** The prefix of the ids `readGenerateAnswer` gives calls Gemini sent without an id (it pairs them by name). */
export const UNNAMED_CALL_PREFIX = 'gemini-call-';
