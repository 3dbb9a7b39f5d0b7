// CPU accounting from /proc (Linux; absent elsewhere, where each reads undefined): the CPU time a
// process used, and what the whole machine used, in clock ticks. bench/run.mjs and
// bench/in-process.mjs measure with these; on a shared 2-core box, CPU per request is steadier than
// req/s, and the rest of the machine's load explains a noisy row.

import { readFileSync } from 'node:fs';

export const CLOCK_TICKS = 100;

/** utime + stime of a process, in ticks. */
export function readJiffies(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** Busy ticks of the whole machine, all cores. */
export function readMachineBusy() {
  try {
    const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = values;
    return user + nice + system + irq + softirq + steal;
  } catch {
    return undefined;
  }
}
