import { indexPath, isRecord, propertyPath } from '../../core/internal.js';
import { base64Bytes, type AskedItem, type AskedPart } from '../turn.js';

/**
 * The shapes a `generateContent` body is made of, read the same way by the request reader and
 * the refusals: `contents[]` of `{role, parts}`, parts that are text, `functionCall` or
 * `functionResponse`, declarations in `tools[].functionDeclarations`.
 */

export type Part = Record<string, unknown>;
export type Content = { role: unknown; parts: Part[] };

/** The request's `contents`, each with its parts (a content without a parts list has none). */
export function contentsOf(body: Record<string, unknown>): Content[] {
  if (!Array.isArray(body.contents)) return [];
  return body.contents.map((content) => {
    const record = isRecord(content) ? content : {};
    return { role: record.role, parts: Array.isArray(record.parts) ? (record.parts.filter(isRecord) as Part[]) : [] };
  });
}

/** The text parts of a content, joined; thoughts (`thought: true`) are not what the model said. */
export function partsText(parts: readonly Part[]): string {
  return parts
    .filter((part) => typeof part.text === 'string' && part.thought !== true)
    .map((part) => String(part.text))
    .join('');
}

/** `systemInstruction` (or `system_instruction`): a string, or a content whose text parts are the system prompt. */
export function systemInstructionOf(body: Record<string, unknown>): string | undefined {
  const instruction = body.systemInstruction ?? body.system_instruction;
  if (typeof instruction === 'string') return instruction;
  if (!isRecord(instruction) || !Array.isArray(instruction.parts)) return undefined;
  return partsText(instruction.parts.filter(isRecord) as Part[]);
}

/** A function call part's call, or undefined for any other part. */
export function functionCallOf(part: Part): { id: string | undefined; name: string; args: unknown } | undefined {
  const call = part.functionCall ?? part.function_call;
  if (!isRecord(call)) return undefined;
  return { id: typeof call.id === 'string' ? call.id : undefined, name: String(call.name), args: call.args ?? {} };
}

/** A function response part's response, or undefined for any other part. */
export function functionResponseOf(part: Part): { id: string | undefined; name: string; response: unknown } | undefined {
  const response = part.functionResponse ?? part.function_response;
  if (!isRecord(response)) return undefined;
  return { id: typeof response.id === 'string' ? response.id : undefined, name: String(response.name), response: response.response };
}

/**
 * A function response as text: a response of one string field (`{result: "…"}`, `{output: "…"}`,
 * as clients wrap a tool's text) is that text; @ai-sdk/google's `{name, content}` is its content;
 * any other response its JSON.
 */
export function responseText(response: unknown): string {
  if (typeof response === 'string') return response;
  if (isRecord(response)) {
    if ('content' in response && Object.keys(response).every((key) => key === 'name' || key === 'content')) return responseText(response.content);
    const values = Object.values(response);
    if (values.length === 1 && typeof values[0] === 'string') return values[0];
  }
  return JSON.stringify(response ?? {});
}

/** Whether a function response reports a failure (`{error: …}`, as Gemini's docs describe it). */
export function responseIsError(response: unknown): boolean {
  return isRecord(response) && Object.keys(response).length === 1 && response.error !== undefined;
}

/** Every function declaration the request offers, in order, with where it sits (`tools[0].functionDeclarations[1]`). */
export function declarationsOf(body: Record<string, unknown>): Array<{ declaration: Record<string, unknown>; path: string }> {
  const found: Array<{ declaration: Record<string, unknown>; path: string }> = [];
  if (!Array.isArray(body.tools)) return found;
  for (const [toolIndex, tool] of body.tools.entries()) {
    if (!isRecord(tool)) continue;
    const declarations = tool.functionDeclarations ?? tool.function_declarations;
    if (!Array.isArray(declarations)) continue;
    for (const [index, declaration] of declarations.entries())
      if (isRecord(declaration)) found.push({ declaration, path: `tools[${toolIndex}].function_declarations[${index}]` });
  }
  return found;
}

/** The request's `generationConfig` (or `generation_config`). */
export function generationConfigOf(body: Record<string, unknown>): Record<string, unknown> {
  const config = body.generationConfig ?? body.generation_config;
  return isRecord(config) ? config : {};
}

/** The request's `toolConfig.functionCallingConfig`, or undefined. */
export function functionCallingConfigOf(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const toolConfig = body.toolConfig ?? body.tool_config;
  if (!isRecord(toolConfig)) return undefined;
  const config = toolConfig.functionCallingConfig ?? toolConfig.function_calling_config;
  return isRecord(config) ? config : undefined;
}

/**
 * One part of a content as the page and `AskedMessage.parts` show it, at `path`
 * (`.contents[1].parts[0]`): text, a thought (`thought: true`) as thinking, `inlineData` and
 * `fileData` as an image (an `image/*` media type) or a file, a function call, a function
 * response as a tool result; anything else (`executableCode`, …) an `unknown` part named by its key.
 */
export function contentPart(part: unknown, path: string): AskedPart {
  if (!isRecord(part)) return { kind: 'unknown', path, type: undefined, value: part };
  if (typeof part.text === 'string') return { kind: part.thought === true ? 'thinking' : 'text', path: propertyPath(path, 'text'), text: part.text };
  const dataKey = keyOf(part, 'inlineData', 'inline_data') ?? keyOf(part, 'fileData', 'file_data');
  if (dataKey !== undefined && isRecord(part[dataKey])) {
    const data = part[dataKey] as Record<string, unknown>;
    const mediaType = data.mimeType ?? data.mime_type;
    const url = data.fileUri ?? data.file_uri;
    return {
      kind: typeof mediaType === 'string' && mediaType.startsWith('image/') ? 'image' : 'file',
      path,
      type: dataKey,
      source: { path: propertyPath(path, dataKey), value: data },
      ...(typeof url === 'string' ? { url } : {}),
      ...(typeof mediaType === 'string' ? { mediaType } : {}),
      ...(typeof data.data === 'string' ? { bytes: base64Bytes(data.data) } : {}),
    };
  }
  const call = functionCallOf(part);
  if (call !== undefined) {
    const callKey = keyOf(part, 'functionCall', 'function_call')!;
    const callPath = propertyPath(path, callKey);
    return {
      kind: 'tool-call',
      path,
      id: call.id,
      name: call.name,
      arguments: (part[callKey] as Record<string, unknown>).args,
      paths: {
        id: call.id === undefined ? undefined : propertyPath(callPath, 'id'),
        name: propertyPath(callPath, 'name'),
        arguments: propertyPath(callPath, 'args'),
      },
    };
  }
  const response = functionResponseOf(part);
  if (response !== undefined) {
    const responsePath = propertyPath(path, keyOf(part, 'functionResponse', 'function_response')!);
    return {
      kind: 'tool-result',
      path,
      // Gemini pairs a response with its call by id when the call had one, else by name.
      toolCallId: response.id ?? response.name,
      idPath: response.id === undefined ? undefined : propertyPath(responsePath, 'id'),
      name: response.name,
      isError: responseIsError(response.response),
      parts: [{ kind: 'text', path: propertyPath(responsePath, 'response'), text: responseText(response.response) }],
    };
  }
  const type = Object.keys(part).find((key) => key !== 'thought' && key !== 'thoughtSignature' && key !== 'thought_signature');
  return { kind: 'unknown', path, type, value: part };
}

/** Which of a field's two spellings (camelCase, snake_case) the part uses. */
function keyOf(part: Part, camel: string, snake: string): string | undefined {
  return part[camel] !== undefined ? camel : part[snake] !== undefined ? snake : undefined;
}

/** `systemInstruction` (or `system_instruction`) as the page shows it: where it is and its parts. */
export function systemInstructionItem(body: Record<string, unknown>): AskedItem | undefined {
  const key = keyOf(body, 'systemInstruction', 'system_instruction');
  if (key === undefined) return undefined;
  const path = propertyPath('', key);
  const instruction = body[key];
  if (typeof instruction === 'string') return { path, role: 'system', parts: [{ kind: 'text', path, text: instruction }] };
  if (!isRecord(instruction) || !Array.isArray(instruction.parts))
    return { path, role: 'system', parts: [{ kind: 'unknown', path, type: undefined, value: instruction }] };
  const partsPath = propertyPath(path, 'parts');
  return { path, role: 'system', parts: instruction.parts.map((part, index) => contentPart(part, indexPath(partsPath, index))) };
}
