// Imports one modeltape entry in a fresh process and reports which SQLite drivers it asked for.
// Usage: node sqlite-driver-probe.mjs ENTRY [--open] [--hide]
//   --open  then open an in-memory SqliteJournalStore (ENTRY must be modeltape/runtime)
//   --hide  make better-sqlite3 unresolvable and node:sqlite absent, as on Node 20 without it
// Prints one JSON line: { requested: [the drivers asked for, loaded or not], driver?, error?: { name, code, message } }.
// A probe, so it wraps the loaders of this process only: require (how better-sqlite3 loads),
// process.getBuiltinModule (how node:sqlite loads) and, by a resolve hook, any ESM import of them.
import Module, { register } from 'node:module';

const [entry, ...flags] = process.argv.slice(2);
const hide = flags.includes('--hide');
const requested = [];
const DRIVERS = new Map([
  ['better-sqlite3', 'better-sqlite3'],
  ['node:sqlite', 'node:sqlite'],
  ['sqlite', 'node:sqlite'],
]);

const load = Module._load;
Module._load = function (request, ...rest) {
  if (DRIVERS.has(request)) requested.push(DRIVERS.get(request));
  return load.call(this, request, ...rest);
};
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (hide && request === 'better-sqlite3')
    throw Object.assign(new Error(`Cannot find module '${request}' (hidden by the probe)`), { code: 'MODULE_NOT_FOUND' });
  return resolveFilename.call(this, request, ...rest);
};
const getBuiltinModule = process.getBuiltinModule;
process.getBuiltinModule = function (id) {
  if (DRIVERS.has(id)) {
    requested.push(DRIVERS.get(id));
    if (hide) return undefined;
  }
  return getBuiltinModule.call(process, id);
};
// An ESM import of a driver fails the import outright, naming the importer.
const hook = `export async function resolve(specifier, context, next) {
  if (specifier === 'better-sqlite3' || specifier === 'node:sqlite') throw new Error('sqlite-driver-probe: ' + context.parentURL + ' imports ' + specifier);
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

const report = { entry, requested };
try {
  const module = await import(entry);
  if (flags.includes('--open')) {
    const store = module.SqliteJournalStore.memory();
    report.driver = store.driver;
    await store.close();
  }
} catch (error) {
  report.error = { name: error.name, code: error.code, message: error.message };
}
process.stdout.write(`${JSON.stringify(report)}\n`);
