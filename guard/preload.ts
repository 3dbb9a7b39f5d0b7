/**
 * Loaded into every Node process `modeltape run` starts in replay mode (`NODE_OPTIONS=--import`,
 * before what the user already has). It installs the run's guard (see `installRunGuard`): every
 * connection to a provider host is refused before its DNS lookup, and what was refused, and every
 * other connection that leaves loopback, is appended to the run's report file, which the run
 * reads when the command ends. It imports nothing but Node's own modules and this folder
 * (`bench/guard-preload.mjs` measures what it adds to a process's start).
 */
import { installRunGuard } from './run-guard.js';

installRunGuard(process.env);
