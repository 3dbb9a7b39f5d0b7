import { askedTurn, type AskedTurn } from '../../turn.js';
import { readFormat } from '../format.js';

/**
 * What an Ollama `/api/generate` request shows the model: `system` and one user message, the
 * `prompt`; `format` as the response schema; `stream` on unless the body says `false`.
 */
export function readOllamaGenerateRequest(body: Record<string, unknown>, index: number): AskedTurn {
  return askedTurn(body, {
    index,
    provider: 'ollama',
    api: 'ollama-generate',
    system: typeof body.system === 'string' && body.system !== '' ? body.system : undefined,
    messages: [{ role: 'user', text: typeof body.prompt === 'string' ? body.prompt : '' }],
    tools: [],
    responseSchema: readFormat(body.format),
    exchanges: [],
    stream: body.stream !== false,
  });
}
