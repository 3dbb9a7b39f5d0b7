import { readOllamaChatRequest, refuseOllamaChatRequest } from '../../providers/internal.js';
import type { Answer } from '../answer.js';
import { refusalResponse, type RenderContext, type Surface } from '../surface.js';
import { jsonResponse } from '../wire-response.js';
import { contentPieces, ndjsonResponse, ollamaContent, ollamaDoneReason, ollamaHead, ollamaMetrics, ollamaThinking } from './ndjson.js';

/**
 * Ollama's native chat, `POST /api/chat`: one JSON object with `stream:false`, otherwise (the
 * default) NDJSON: a `done:false` object per content piece, tool calls whole in one object (as
 * ollama/ollama docs/api.md "Streaming with tools" shows), then the `done:true` object with
 * `done_reason` and the metrics. A body without messages loads the model: `done_reason:"load"`.
 * A thinking turn carries `message.thinking`, streamed before the content.
 */
export const ollamaChatSurface: Surface = {
  provider: 'ollama',
  api: 'ollama-chat',

  refuse(body, _options, context) {
    const refusal = refusalResponse('ollama', refuseOllamaChatRequest(body), context);
    if (refusal) return refusal;
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      const turn = readOllamaChatRequest(body, 0);
      return jsonResponse(200, { ...ollamaHead(turn, context), message: { role: 'assistant', content: '' }, done_reason: 'load', done: true }, context.headers);
    }
    return undefined;
  },
  ask: readOllamaChatRequest,

  respond(turn, answer, context, failure) {
    const calls = toolCalls(answer, context);
    const head = ollamaHead(turn, context);
    const thinking = ollamaThinking(turn, answer);
    const final = { done_reason: ollamaDoneReason(context), done: true, ...ollamaMetrics(answer, context, thinking) };
    if (!turn.stream) {
      const message = {
        role: 'assistant',
        content: ollamaContent(answer),
        ...(thinking === '' ? {} : { thinking }),
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      };
      return jsonResponse(200, { ...head, message, ...final }, context.headers);
    }
    const objects: unknown[] = [];
    if (thinking !== '') objects.push({ ...head, message: { role: 'assistant', content: '', thinking }, done: false });
    for (const content of contentPieces(answer, context)) objects.push({ ...head, message: { role: 'assistant', content }, done: false });
    if (calls.length > 0) objects.push({ ...head, message: { role: 'assistant', content: '', tool_calls: calls }, done: false });
    objects.push({ ...head, message: { role: 'assistant', content: '' }, ...final });
    return ndjsonResponse(objects, context, failure);
  },
};

// Ollama's tool calls: `arguments` an object, `index` the call's position, an id (`call_…` on a
// real server, `fake-call-…` here).
function toolCalls(answer: Answer, context: RenderContext): Array<{ id: string; function: { index: number; name: string; arguments: unknown } }> {
  if (answer.kind !== 'tool-calls') return [];
  return answer.calls.map((call, index) => ({ id: call.id ?? context.newId('call'), function: { index, name: call.name, arguments: call.arguments ?? {} } }));
}
