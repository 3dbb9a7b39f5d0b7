import { askedTurn, type AskedItem, type AskedTurn } from '../../turn.js';
import { imageParts } from '../chat/read-request.js';
import { readFormat } from '../format.js';

/**
 * What an Ollama `/api/generate` request shows the model: `system` and one user message, the
 * `prompt` (with the `images` sent beside it as its parts); `format` as the response schema;
 * `stream` on unless the body says `false`.
 */
export function readOllamaGenerateRequest(body: Record<string, unknown>, index: number): AskedTurn {
  const items: AskedItem[] = [];
  if (typeof body.system === 'string') items.push({ path: '.system', role: 'system', parts: [{ kind: 'text', path: '.system', text: body.system }] });
  const prompt = typeof body.prompt === 'string' ? [{ kind: 'text' as const, path: '.prompt', text: body.prompt }] : [];
  const parts = [...prompt, ...imageParts(body.images, '.images')];
  items.push({ path: '.prompt', role: 'user', parts });
  return askedTurn(body, {
    index,
    provider: 'ollama',
    api: 'ollama-generate',
    system: typeof body.system === 'string' && body.system !== '' ? body.system : undefined,
    messages: [{ role: 'user', text: typeof body.prompt === 'string' ? body.prompt : '', path: '.prompt', parts }],
    items,
    tools: [],
    responseSchema: readFormat(body.format),
    exchanges: [],
    stream: body.stream !== false,
  });
}
