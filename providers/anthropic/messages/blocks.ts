import { isRecord } from '../../../core/internal.js';

/** A content block of a Messages request or answer. */
export type Block = Record<string, unknown>;

/** A message's content as blocks: a string is one text block (none when empty). */
export function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content.filter(isRecord) as Block[]) : [];
}

/** The JSON Schema a request asks the answer to follow (`output_config.format`, or the older `output_format`). */
export function outputFormat(body: Record<string, unknown>): { schema: unknown } | undefined {
  const config = isRecord(body.output_config) ? body.output_config : undefined;
  const format = isRecord(config?.format) ? config.format : isRecord(body.output_format) ? body.output_format : undefined;
  return format?.type === 'json_schema' ? { schema: format.schema ?? {} } : undefined;
}
