/** cli/: the `modeltape` command. */
export { main, USAGE } from './main.js';
export type { CommandIo } from './io.js';
