import { indexPath, propertyPath } from '../core/internal.js';

/** A member name given twice in one JSON object. */
export interface DuplicateMember {
  name: string;
  /** The object holding it, in JSON access syntax (`.request.body`; empty for the top level). */
  path: string;
}

/**
 * The first member name that appears twice in one object of `text`, valid JSON (JSON.parse keeps
 * the last and says nothing). Iterative, so it holds for any depth. Lines modeltape writes are
 * canonical and cannot hold one: callers check only lines that do not serialize back to
 * themselves.
 */
export function firstDuplicateMember(text: string): DuplicateMember | undefined {
  // One frame per open container: an object's names so far and the member being read, or an array's index.
  const stack: Array<{ names: Set<string> | undefined; current: string; index: number; expectName: boolean }> = [];
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x22) {
      const end = stringEnd(text, at);
      const top = stack[stack.length - 1];
      if (top?.names !== undefined && top.expectName) {
        const name = JSON.parse(text.slice(at, end + 1)) as string;
        if (top.names.has(name)) return { name, path: pathOf(stack.slice(0, -1)) };
        top.names.add(name);
        top.current = name;
        top.expectName = false;
      }
      at = end;
    } else if (code === 0x7b) stack.push({ names: new Set(), current: '', index: 0, expectName: true });
    else if (code === 0x5b) stack.push({ names: undefined, current: '', index: 0, expectName: false });
    else if (code === 0x7d || code === 0x5d) stack.pop();
    else if (code === 0x2c) {
      const top = stack[stack.length - 1];
      if (top === undefined) continue;
      if (top.names !== undefined) top.expectName = true;
      else top.index++;
    }
  }
  return undefined;
}

// The index of the quote closing the string that opens at `start`.
function stringEnd(text: string, start: number): number {
  let at = start;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

function pathOf(frames: ReadonlyArray<{ names: Set<string> | undefined; current: string; index: number }>): string {
  return frames.reduce((path, frame) => (frame.names === undefined ? indexPath(path, frame.index) : propertyPath(path, frame.current)), '');
}
