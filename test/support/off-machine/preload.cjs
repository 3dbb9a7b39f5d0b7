'use strict';
/**
 * Keeps every connection of a test's processes on this machine, whatever the code under test
 * does: a TCP connection to a host off loopback goes to the test's stand-in on 127.0.0.1 instead
 * (its port), and a lookup of a name off loopback answers 127.0.0.1 without asking DNS. It lies
 * beneath modeltape's guard: it wraps `net.Socket.prototype.connect` before the guard does, so
 * the guard still sees the host and port the client asked for, and only a connection the guard
 * let through reaches the stand-in, which counts it (see ../off-machine-stand-in.ts).
 *
 * In a child process: `NODE_OPTIONS=--require=<this file>` and `TEST_OFF_MACHINE_STAND_IN=127.0.0.1:PORT`.
 * Node runs `--require` preloads before any `--import`, so this sits under the guard's preload.
 * In process: `install()` before any guard starts, then `aim(target)`.
 *
 * Not covered: c-ares queries (`dns.resolve*`, `dns.Resolver`), which no test here makes.
 */
const dns = require('node:dns');
const net = require('node:net');
const { syncBuiltinESMExports } = require('node:module');
const workerThreads = require('node:worker_threads');

const VARIABLE = 'TEST_OFF_MACHINE_STAND_IN';
const STATE = Symbol.for('modeltape.test.off-machine');
// The guard's hook, once laid, stays: whatever wraps the socket's connect after it sits above it.
const GUARD_HOOK = Symbol.for('modeltape.connect-hook');

/** As modeltape's guard reads loopback (guard/hosts.ts): names and addresses that stay on this machine. */
function isLoopback(host) {
  let name = String(host).toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === '::1' || name === '::' || name === '0.0.0.0' || name === '0:0:0:0:0:0:0:1') return true;
  const v4 = name.startsWith('::ffff:') ? name.slice(7) : name;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(name);
}

function install() {
  const holder = globalThis;
  if (holder[STATE] !== undefined) return holder[STATE];
  const guard = holder[GUARD_HOOK];
  if (guard !== undefined && (guard.patched !== undefined || guard.patchedTls !== undefined)) {
    throw new Error(
      "The off-machine stand-in must be installed before modeltape's guard: the guard wraps the socket's connect once and keeps it, so a wrapper laid after it would see connections before the guard does. Call offMachineStandIn() at the top of the describe block.",
    );
  }
  const state = { target: undefined, connect: net.Socket.prototype.connect, lookup: dns.lookup, promisesLookup: dns.promises.lookup };
  holder[STATE] = state;

  // Answers every name off loopback with the stand-in's address; `localhost` and addresses go to
  // the real lookup, which reads them without a query.
  const answer = (hostname, options) => {
    const all = typeof options === 'object' && options !== null && options.all === true;
    return all ? [{ address: '127.0.0.1', family: 4 }] : { address: '127.0.0.1', family: 4 };
  };
  const asksNoOne = (hostname) => String(hostname).toLowerCase() === 'localhost' || (net.isIP(String(hostname)) !== 0 && isLoopback(hostname));
  const lookup = function (hostname, options, callback) {
    if (typeof options === 'function') {
      callback = options;
      options = {};
    }
    if (asksNoOne(hostname)) return state.lookup.call(dns, hostname, options, callback);
    const found = answer(hostname, options);
    process.nextTick(() => (Array.isArray(found) ? callback(null, found) : callback(null, found.address, found.family)));
    return {};
  };
  const promisesLookup = async function (hostname, options) {
    if (asksNoOne(hostname)) return state.promisesLookup.call(dns.promises, hostname, options);
    return answer(hostname, options);
  };
  // What a connection looks its name up with: a test's own spy on dns.lookup, if it set one, so
  // that it still sees every lookup; never the real one.
  const connectLookup = (hostname, options, callback) => (dns.lookup === state.lookup ? lookup : dns.lookup).call(dns, hostname, options, callback);

  net.Socket.prototype.connect = function (...args) {
    // net.connect() hands its arguments over already normalized, as one array.
    const [options, callback] = Array.isArray(args[0]) ? args[0] : net._normalizeArgs(args);
    if (options.path) return state.connect.apply(this, args);
    const host = typeof options.host === 'string' && options.host !== '' ? options.host : 'localhost';
    if (isLoopback(host)) return state.connect.apply(this, args);
    const target = state.target;
    if (target === undefined) {
      const refusal = new Error(`A test connected to ${host}:${options.port}, off this machine, while no stand-in was listening: refused.`);
      process.nextTick(() => this.destroy(refusal));
      return this;
    }
    // A name keeps its name (TLS still asks for it, a test's lookup spy still sees it) and is
    // looked up to the stand-in; an address is replaced by the stand-in's.
    const aimed = { ...options, host: net.isIP(host.replace(/^\[|\]$/g, '')) === 0 ? host : target.host, port: target.port, lookup: connectLookup };
    return state.connect.call(this, aimed, callback);
  };
  dns.lookup = lookup;
  dns.promises.lookup = promisesLookup;

  // A worker given an environment of its own gets this preload and the stand-in in it too.
  const Original = workerThreads.Worker;
  workerThreads.Worker = class extends Original {
    constructor(filename, options) {
      const env = options === undefined ? undefined : options.env;
      if (state.target !== undefined && typeof env === 'object' && env !== null && env !== workerThreads.SHARE_ENV) {
        options = { ...options, env: { ...env, ...environment(state.target, env.NODE_OPTIONS) } };
      }
      super(filename, options);
    }
  };
  syncBuiltinESMExports();
  return state;
}

/** Sends this process's connections off loopback to `target` (`{ host, port }`), or refuses them (undefined). */
function aim(target) {
  install().target = target;
}

/** The variables a child process needs to be kept on loopback by this preload, ahead of `nodeOptions`. */
function environment(target, nodeOptions = '') {
  const preload = `--require=${JSON.stringify(__filename)}`;
  return {
    [VARIABLE]: `${target.host}:${target.port}`,
    NODE_OPTIONS: nodeOptions.includes(preload) ? nodeOptions : `${preload}${nodeOptions === '' ? '' : ' '}${nodeOptions}`,
  };
}

module.exports = { install, aim, environment, VARIABLE };

// Loaded as a preload into a child of the test.
const given = process.env[VARIABLE];
if (given !== undefined && given !== '') {
  const colon = given.lastIndexOf(':');
  aim({ host: given.slice(0, colon), port: Number(given.slice(colon + 1)) });
}
