import type { ProviderError } from '../provider-error.js';
import { checkOpenAiStrictSchema, formatContext } from '../strict-schema.js';
import { OPENAI_MAX_TOOLS } from './limits.js';

/** OpenAI's 400 for a request it will not run: `invalid_request_error`, with the parameter and code it names. */
export function openaiRefusal(message: string, param: string | null, code: string | null = null): ProviderError {
  return { status: 400, type: 'invalid_request_error', message, param, code };
}

/** More tools than OpenAI's APIs take (Chat Completions and Responses alike). */
export function refuseToolCount(tools: readonly unknown[]): ProviderError | undefined {
  if (tools.length <= OPENAI_MAX_TOOLS) return undefined;
  return openaiRefusal(
    `Invalid 'tools': array too long. Expected an array with maximum length ${OPENAI_MAX_TOOLS}, but got an array with length ${tools.length} instead.`,
    'tools',
    'array_above_max_length',
  );
}

/** A temperature outside 0..2. */
export function refuseTemperature(temperature: unknown): ProviderError | undefined {
  if (typeof temperature !== 'number') return undefined;
  if (temperature > 2)
    return openaiRefusal(
      `Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ${temperature} instead.`,
      'temperature',
      'decimal_above_max_value',
    );
  if (temperature < 0)
    return openaiRefusal(
      `Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got ${temperature} instead.`,
      'temperature',
      'decimal_below_min_value',
    );
  return undefined;
}

/**
 * A schema strict mode does not take, refused as OpenAI words it: a response format's schema
 * (`kind` `response_format`) or a strict function's parameters (`function`).
 */
export function refuseStrictSchema(kind: 'response_format' | 'function', name: string, schema: unknown, param: string): ProviderError | undefined {
  const violation = checkOpenAiStrictSchema(schema);
  if (violation === undefined) return undefined;
  return openaiRefusal(`Invalid schema for ${kind} '${name}': In context=${formatContext(violation.context)}, ${violation.message}`, param);
}
