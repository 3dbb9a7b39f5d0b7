import { ModeltapeError, parseJsonPath, type PathSegment, isRecord } from '../core/internal.js';
import { BACKTRACKING_ADVICE, backtrackingRisk } from './regex-safety.js';
import type { Normalizer, NormalizerTarget } from './tape-format.js';

const DEFAULT_PLACEHOLDER = '<normalized>';

/** A normalizer list compiled once: paths parsed, patterns built. */
export type CompiledNormalizers = ReadonlyArray<
  { kind: 'path'; segments: PathSegment[]; placeholder: string } | { kind: 'pattern'; pattern: RegExp; placeholder: string; in: NormalizerTarget }
>;

/**
 * Parses paths and builds regular expressions, failing early with the offending normalizer: a
 * pattern that is no regular expression (`invalid_normalizer`) or one that can backtrack
 * catastrophically (`unsafe_normalizer`, see {@link backtrackingRisk}).
 */
export function compileNormalizers(normalizers: readonly Normalizer[]): CompiledNormalizers {
  return normalizers.map((normalizer, index) => {
    const placeholder = normalizer.placeholder ?? DEFAULT_PLACEHOLDER;
    if ('path' in normalizer) return { kind: 'path' as const, segments: parseJsonPath(normalizer.path), placeholder };
    let pattern: RegExp;
    try {
      const flags = new Set([...(normalizer.flags ?? ''), 'g']);
      pattern = new RegExp(normalizer.pattern, [...flags].join(''));
    } catch (error) {
      throw new ModeltapeError(
        'invalid_normalizer',
        `Normalizer ${index} has an invalid pattern ${JSON.stringify(normalizer.pattern)}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    // It runs over every string of every request, and in verify over every line of a tape.
    const risk = backtrackingRisk(normalizer.pattern, normalizer.flags);
    if (risk !== undefined) {
      throw new ModeltapeError(
        'unsafe_normalizer',
        `Normalizer ${index} has a pattern ${JSON.stringify(normalizer.pattern)} that can backtrack catastrophically (take exponential or high polynomial time on a long string): ${risk}. ${BACKTRACKING_ADVICE}`,
      );
    }
    return { kind: 'pattern' as const, pattern, placeholder, in: normalizer.in ?? 'body' };
  });
}

/**
 * Returns a copy of a JSON body with every normalizer applied in order. The input is never
 * changed. With no normalizers it returns the input itself.
 */
export function normalizeBody(body: unknown, normalizers: CompiledNormalizers): unknown {
  if (!normalizers.some(rewritesBody)) return body;
  let result = structuredClone(body);
  for (const normalizer of normalizers) {
    if (normalizer.kind === 'path') result = replaceAtPath(result, normalizer.segments, 0, normalizer.placeholder);
    else if (normalizer.in === 'body') result = replaceInStrings(result, normalizer.pattern, normalizer.placeholder);
  }
  return result;
}

/** Whether a compiled normalizer rewrites the body (every one but a pattern `in: "path"`). */
export function rewritesBody(normalizer: CompiledNormalizers[number]): boolean {
  return normalizer.kind === 'path' || normalizer.in === 'body';
}

/** A request path with every pattern normalizer `in: "path"` applied in order. */
export function normalizePath(path: string, normalizers: CompiledNormalizers): string {
  let result = path;
  for (const normalizer of normalizers)
    if (normalizer.kind === 'pattern' && normalizer.in === 'path') result = result.replace(normalizer.pattern, normalizer.placeholder);
  return result;
}

function replaceAtPath(value: unknown, segments: PathSegment[], depth: number, placeholder: string): unknown {
  if (depth === segments.length) return placeholder;
  const segment = segments[depth]!;
  if ('wildcard' in segment) {
    if (Array.isArray(value)) return value.map((item) => replaceAtPath(item, segments, depth + 1, placeholder));
    if (isRecord(value)) {
      for (const name of Object.keys(value)) value[name] = replaceAtPath(value[name], segments, depth + 1, placeholder);
    }
    return value;
  }
  if ('index' in segment) {
    if (Array.isArray(value) && segment.index < value.length) value[segment.index] = replaceAtPath(value[segment.index], segments, depth + 1, placeholder);
    return value;
  }
  if (isRecord(value) && Object.hasOwn(value, segment.property)) {
    value[segment.property] = replaceAtPath(value[segment.property], segments, depth + 1, placeholder);
  }
  return value;
}

function replaceInStrings(value: unknown, pattern: RegExp, placeholder: string): unknown {
  if (typeof value === 'string') return value.replace(pattern, placeholder);
  if (Array.isArray(value)) return value.map((item) => replaceInStrings(item, pattern, placeholder));
  if (isRecord(value)) {
    for (const name of Object.keys(value)) value[name] = replaceInStrings(value[name], pattern, placeholder);
  }
  return value;
}
