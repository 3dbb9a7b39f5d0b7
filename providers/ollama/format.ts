import { isRecord } from '../../core/internal.js';
import type { ResponseSchema } from '../turn.js';

/**
 * Ollama's `format` as the schema an answer must follow: a JSON Schema object is that schema;
 * `"json"` asks for any JSON object (Ollama constrains the output with a JSON grammar), read as
 * `{type:"object"}`; anything else is no schema (`refusals.ts` refuses what Ollama refuses).
 */
export function readFormat(format: unknown): ResponseSchema | undefined {
  if (format === 'json') return { source: 'format', name: undefined, schema: { type: 'object' }, strict: false };
  if (isRecord(format)) return { source: 'format', name: undefined, schema: format, strict: true };
  return undefined;
}
