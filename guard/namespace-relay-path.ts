import { fileURLToPath } from 'node:url';

/**
 * The program `modeltape run --network namespace` starts first inside the namespace (see
 * namespace-relay.ts): the compiled one beside this module, or, when this module runs from its
 * TypeScript source (the project's own tests), the one the build put in dist/.
 */
export const NAMESPACE_RELAY_PATH: string = fileURLToPath(
  import.meta.url.endsWith('.ts') ? new URL('../dist/guard/namespace-relay.js', import.meta.url) : new URL('./namespace-relay.js', import.meta.url),
);

/** The exit status of a relay that could not set the namespace up (it says why on stderr). */
export const NAMESPACE_SETUP_FAILED = 125;
