import { readOllamaGenerateRequest, refuseOllamaGenerateRequest } from '../../providers/internal.js';
import { refusalResponse, type Surface } from '../surface.js';
import { jsonResponse } from '../wire-response.js';
import { contentPieces, ndjsonResponse, ollamaContent, ollamaDoneReason, ollamaHead, ollamaMetrics, ollamaThinking } from './ndjson.js';

/**
 * Ollama's completion, `POST /api/generate`: `response` in place of chat's `message`, one JSON
 * object with `stream:false`, otherwise NDJSON pieces then the `done:true` object with the
 * metrics. An empty prompt loads the model: `done_reason:"load"`. A thinking turn carries
 * `thinking`, streamed before the response.
 */
export const ollamaGenerateSurface: Surface = {
  provider: 'ollama',
  api: 'ollama-generate',

  refuse(body, _options, context) {
    const refusal = refusalResponse('ollama', refuseOllamaGenerateRequest(body), context);
    if (refusal) return refusal;
    if (body.prompt === undefined || body.prompt === '') {
      const turn = readOllamaGenerateRequest(body, 0);
      return jsonResponse(200, { ...ollamaHead(turn, context), response: '', done: true, done_reason: 'load' }, context.headers);
    }
    return undefined;
  },
  ask: readOllamaGenerateRequest,

  respond(turn, answer, context, failure) {
    const head = ollamaHead(turn, context);
    const thinking = ollamaThinking(turn, answer);
    const final = { done: true, done_reason: ollamaDoneReason(context), ...ollamaMetrics(answer, context, thinking) };
    if (!turn.stream)
      return jsonResponse(200, { ...head, response: ollamaContent(answer), ...(thinking === '' ? {} : { thinking }), ...final }, context.headers);
    const objects: unknown[] = [];
    if (thinking !== '') objects.push({ ...head, response: '', thinking, done: false });
    for (const response of contentPieces(answer, context)) objects.push({ ...head, response, done: false });
    objects.push({ ...head, response: '', ...final });
    return ndjsonResponse(objects, context, failure);
  },
};
