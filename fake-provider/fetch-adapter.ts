import type { WireResponse } from './wire-response.js';

/**
 * Turns a {@link WireResponse} into what `fetch` resolves with. A connection dropped before the
 * headers rejects as undici's fetch does (`TypeError: fetch failed`); dropped mid-stream, the
 * body errors (`TypeError: terminated`). A hang waits for the request's abort signal.
 */
export async function fetchResponse(wire: WireResponse, signal: AbortSignal, sleep: (milliseconds: number) => Promise<void>): Promise<Response> {
  if (wire.delayMs) await abortable(sleep(wire.delayMs), signal);
  const cut = wire.cut;
  if (cut !== undefined && wire.frames === undefined) {
    if (cut.kind === 'hang') await abortable(new Promise<never>(() => undefined), signal);
    throw new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
  }
  if (wire.frames === undefined) {
    // A 204, 205 or 304 may not carry a body, not even an empty one.
    const body = wire.status === 204 || wire.status === 205 || wire.status === 304 ? null : (wire.body ?? null);
    return new Response(body, { status: wire.status, headers: wire.headers });
  }
  const frames = wire.frames;
  const encoder = new TextEncoder();
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (cut !== undefined && index >= cut.afterFrames) {
        if (cut.kind === 'drop') {
          controller.error(new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }));
          return undefined;
        }
        return abortable(new Promise<never>(() => undefined), signal).catch((error: unknown) => controller.error(error));
      }
      if (index >= frames.length) {
        controller.close();
        return undefined;
      }
      const frame = frames[index++]!;
      controller.enqueue(typeof frame === 'string' ? encoder.encode(frame) : frame);
      return undefined;
    },
  });
  return new Response(body, { status: wire.status, headers: wire.headers });
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason ?? new DOMException('This operation was aborted', 'AbortError'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason ?? new DOMException('This operation was aborted', 'AbortError'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
