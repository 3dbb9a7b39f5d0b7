import type { ProviderError } from '../provider-error.js';
import type { RefusalOptions } from '../refusal.js';
import { contentsOf, declarationsOf, functionCallOf, functionCallingConfigOf, functionResponseOf, generationConfigOf } from './contents.js';

/** The fields a `GenerateContentRequest` has; proto JSON takes each in camelCase or snake_case. */
const REQUEST_FIELDS = new Set([
  'model',
  'contents',
  'tools',
  'toolConfig',
  'tool_config',
  'safetySettings',
  'safety_settings',
  'systemInstruction',
  'system_instruction',
  'generationConfig',
  'generation_config',
  'cachedContent',
  'cached_content',
  'serviceTier',
  'service_tier',
  'store',
  'labels',
]);

const ROLES = new Set(['user', 'model', 'function']);

// Letters, digits, underscores, dots, colons and dashes, starting with a letter or an underscore, at most 64.
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/**
 * The 400 INVALID_ARGUMENT Gemini answers a `generateContent` body with before any model runs,
 * or undefined. The messages are Gemini's own where they are known from real answers (the
 * function-turn rules, unknown fields, roles); the `* GenerateContentRequest.<field>: …` ones
 * follow the form of its field violations.
 */
export function refuseGenerateRequest(body: Record<string, unknown>, _options?: RefusalOptions): ProviderError | undefined {
  const refuse = (message: string): ProviderError => ({ status: 400, type: 'INVALID_ARGUMENT', message });
  for (const name of Object.keys(body))
    if (!REQUEST_FIELDS.has(name)) return refuse(`Invalid JSON payload received. Unknown name "${name}": Cannot find field.`);
  if (body.contents !== undefined && !Array.isArray(body.contents))
    return refuse(`Invalid JSON payload received. Unknown name "contents": Proto field is not repeating, cannot start list.`);
  const contents = contentsOf(body);
  if (contents.length === 0) return refuse('* GenerateContentRequest.contents: contents is not specified\n');
  let previous: { role: unknown; calls: number; responses: number } | undefined;
  for (const [index, content] of contents.entries()) {
    if (content.role !== undefined && !ROLES.has(String(content.role))) return refuse('Please use a valid role: user, model.');
    if (content.parts.length === 0) return refuse(`* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.\n`);
    const calls = content.parts.filter((part) => functionCallOf(part) !== undefined).length;
    const responses = content.parts.filter((part) => functionResponseOf(part) !== undefined).length;
    // A conversation that opens with a function call, or a call after another model turn, is refused.
    if (calls > 0 && (previous === undefined || previous.role === 'model'))
      return refuse('Please ensure that function call turn comes immediately after a user turn or after a function response turn.');
    if (responses > 0) {
      if (previous === undefined || previous.calls === 0)
        return refuse('Please ensure that function response turn comes immediately after a function call turn.');
      if (responses !== previous.calls)
        return refuse('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
    }
    previous = { role: content.role ?? 'user', calls, responses };
  }
  const config = generationConfigOf(body);
  const temperature = config.temperature;
  if (typeof temperature === 'number' && (temperature < 0 || temperature > 2))
    return refuse(`* GenerateContentRequest.generation_config.temperature: temperature must be in the range [0.0, 2.0], got ${temperature}\n`);
  const candidates = config.candidateCount ?? config.candidate_count;
  if (typeof candidates === 'number' && (candidates < 1 || candidates > 8))
    return refuse('* GenerateContentRequest.generation_config.candidate_count: candidate_count must be in the range [1, 8]\n');
  const declarations = declarationsOf(body);
  const names = new Set<string>();
  for (const { declaration, path } of declarations) {
    const name = declaration.name;
    if (typeof name !== 'string' || !FUNCTION_NAME.test(name))
      return refuse(
        `* GenerateContentRequest.${path}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`,
      );
    if (declaration.parameters !== undefined && declaration.parametersJsonSchema !== undefined)
      return refuse(`* GenerateContentRequest.${path}: parameters and parameters_json_schema cannot be both set.\n`);
    names.add(name);
  }
  const calling = functionCallingConfigOf(body);
  if (calling !== undefined) {
    const mode = String(calling.mode ?? 'AUTO').toUpperCase();
    if (!['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED'].includes(mode))
      return refuse(
        `Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "${String(calling.mode)}"`,
      );
    if (mode === 'ANY' && declarations.length === 0) return refuse('Function calling config is set without function_declarations.');
    const allowed = calling.allowedFunctionNames ?? calling.allowed_function_names;
    if (Array.isArray(allowed) && allowed.length > 0) {
      if (mode !== 'ANY' && mode !== 'VALIDATED')
        return refuse(
          '* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: allowed_function_names may only be set when mode is ANY.\n',
        );
      // An approximation: a 400 INVALID_ARGUMENT in the form of Gemini's field violations; the
      // real wording for an allowed name that no declaration has was not found in a captured answer.
      const unknown = allowed.find((name) => !names.has(String(name)));
      if (unknown !== undefined)
        return refuse(
          `* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: allowed function name "${String(unknown)}" is not declared in tools.\n`,
        );
    }
  }
  const mimeType = config.responseMimeType ?? config.response_mime_type;
  const schema = config.responseSchema ?? config.response_schema ?? config.responseJsonSchema ?? config.response_json_schema;
  if (schema !== undefined && mimeType !== 'application/json' && mimeType !== 'text/x.enum')
    return refuse(
      `* GenerateContentRequest.generation_config.response_mime_type: Only response_mime_type 'application/json' or 'text/x.enum' supports a response schema, got ${mimeType === undefined ? "'text/plain'" : JSON.stringify(mimeType)}.\n`,
    );
  if ((config.responseSchema ?? config.response_schema) !== undefined && (config.responseJsonSchema ?? config.response_json_schema) !== undefined)
    return refuse('* GenerateContentRequest.generation_config: response_schema and response_json_schema cannot be both set.\n');
  return undefined;
}
