import { captureRequest, exchangeKey, headerValue, type CompiledKeyRules, type RecordedRequest } from '../../recordings/internal.js';
import type { ProxyRequest } from './proxy-request.js';
import type { Route } from './router.js';

const KEY_CACHE_LIMIT = 10_000;
const KEY_CACHE_MAX_BODY = 16 * 1024;

/**
 * What the tape stores of a routed request, and its exchange key, under one run's key rules.
 * Computing a key parses and canonicalizes the body; identical requests reuse the key.
 */
export class RequestKeys {
  readonly rules: CompiledKeyRules;
  #cache = new Map<string, string>();

  constructor(rules: CompiledKeyRules) {
    this.rules = rules;
  }

  /** The request as a tape stores it. Throws `JsonTooDeepError` for a body no tape can key. */
  capture(route: Route, request: ProxyRequest): RecordedRequest {
    return captureRequest({ method: request.method, path: route.path, query: route.query, headers: request.headers, body: request.body }, this.rules);
  }

  /** The request's exchange key. Throws `JsonTooDeepError` for a body no tape can key. */
  keyOf(route: Route, request: ProxyRequest): string {
    // Large prompts are rarely identical and would make the cache hold megabytes.
    if (request.body.length > KEY_CACHE_MAX_BODY) return exchangeKey(route.upstream.name, this.capture(route, request), this.rules);
    // content-type decides how a body is read (JSON or text), so it is part of the cache key.
    let cacheKey = `${request.method}\u0000${route.upstream.name}\u0000${route.path}\u0000${route.query}\u0000${request.headers['content-type'] ?? ''}\u0000`;
    for (const name of this.rules.headers) cacheKey += `${headerValue(request.headers, name) ?? ''}\u0000`;
    cacheKey += request.body.toString('latin1');
    let key = this.#cache.get(cacheKey);
    if (key === undefined) {
      key = exchangeKey(route.upstream.name, this.capture(route, request), this.rules);
      if (this.#cache.size >= KEY_CACHE_LIMIT) this.#cache.clear();
      this.#cache.set(cacheKey, key);
    }
    return key;
  }
}
