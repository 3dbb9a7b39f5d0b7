import { ModeltapeError } from './modeltape-error.js';
import type { PathSegment } from './json-path.js';

/**
 * Parses JSON access syntax as used in every modeltape message and config:
 * `.messages[2].content`, `.metadata.request_id`, `.messages[*].content`, `.tools.*`,
 * `["odd key"]`. The empty string and `.` are the root.
 */
export function parseJsonPath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let position = 0;
  const fail = (why: string): never => {
    throw new ModeltapeError(
      'invalid_json_path',
      `Invalid JSON path ${JSON.stringify(path)} at character ${position}: ${why}. Use JSON access syntax such as .messages[0].content or .messages[*].content.`,
    );
  };
  if (path === '.' || path === '') return segments;
  while (position < path.length) {
    const character = path[position];
    if (character === '.') {
      const match = /^(\*|[A-Za-z_$][\w$-]*)/.exec(path.slice(position + 1));
      if (!match) fail('expected a property name after "."');
      segments.push(match![1] === '*' ? { wildcard: true } : { property: match![1]! });
      position += 1 + match![1]!.length;
    } else if (character === '[') {
      const rest = path.slice(position);
      const index = /^\[(\d+|\*)\]/.exec(rest);
      if (index) {
        segments.push(index[1] === '*' ? { wildcard: true } : { index: Number(index[1]) });
        position += index[0].length;
        continue;
      }
      const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
      if (!quoted) fail('expected [number], [*] or ["name"]');
      segments.push({ property: JSON.parse(quoted![1]!) as string });
      position += quoted![0].length;
    } else {
      fail('expected "." or "["');
    }
  }
  return segments;
}
