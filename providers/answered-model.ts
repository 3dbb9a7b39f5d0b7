import { isRecord } from '../core/internal.js';
import type { WireApi } from './vocabulary.js';

/**
 * The model an answer says answered, from its JSON payloads (a body, or each event of its stream,
 * in order): the first that names one, where its API names it. OpenAI's chat (a body, each
 * chunk) and Responses (`model`, a stream event's `response.model`), Anthropic's Messages
 * (`model`, `message_start`'s `message.model`, as Claude on Bedrock's InvokeModel too), Gemini's
 * `modelVersion`, Ollama's `model`. Bedrock's Converse (and Nova's body) names none: undefined.
 */
export function answeredModelOf(api: WireApi | undefined, payloads: Iterable<unknown>): string | undefined {
  if (api === undefined || api === 'bedrock-converse') return undefined;
  for (const payload of payloads) {
    if (!isRecord(payload)) continue;
    const named =
      api === 'gemini-generate'
        ? payload.modelVersion
        : (payload.model ??
          (isRecord(payload.response) ? payload.response.model : undefined) ??
          (isRecord(payload.message) ? payload.message.model : undefined));
    if (typeof named === 'string' && named !== '') return named;
  }
  return undefined;
}
