import { afterEach } from 'vitest';

/**
 * Returns `started`, which registers a proxy, stand-in or anything with `close()` to be closed
 * after each test, newest first. Closing something twice is harmless.
 */
export function closeAfterEach(): <T extends { close(): Promise<unknown> }>(thing: T) => T {
  let open: Array<{ close(): Promise<unknown> }> = [];
  afterEach(async () => {
    const closing = open.reverse();
    open = [];
    for (const thing of closing) await thing.close();
  });
  return (thing) => {
    open.push(thing);
    return thing;
  };
}
