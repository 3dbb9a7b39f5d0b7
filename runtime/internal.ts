/**
 * Internal barrel: what other parts import. It is the public entry (index.ts) and what only the
 * other parts use.
 * runtime/: a journaled agent runtime on SQLite. Every model call, tool call, clock read and new
 * id is an effect, journaled before and after it happens; replay reads effects back and performs
 * none. With the backstop assertion, deterministic store faults, leases and the journal store
 * conformance battery.
 */
export * from './index.js';
export { effectKey } from './journal-store.js';
export { checkArgumentsValue, ARGUMENT_DEPTH_CAP } from '../providers/internal.js';
export { acceptRaw } from './tool-box.js';
export { renderModelRequest } from './model-providers.js';
