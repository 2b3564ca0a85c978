// CPU accounting from /proc (Linux): what a server and everything it started (its embedded
// PostgreSQL, its workers) cost over a measured run, and how much of the machine was busy with
// something else at the same time. Throughput on a shared box is noisy; CPU per token is not.
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

// Clock ticks per second of /proc/<pid>/stat and /proc/stat (USER_HZ, 100 nearly everywhere).
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

// Fields of /proc/<pid>/stat after the `(comm)` field, which may itself hold spaces and parentheses.
function statFields(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null; // Exited between listing and reading.
  }
}

function allProcesses() {
  const processes = new Map(); // pid -> { ppid, ticks }
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(name);
    if (!fields) continue;
    // After comm: [0] state, [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime.
    // cutime/cstime hold the CPU of children already reaped, so a process that exits during
    // the run still counts.
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    processes.set(Number(name), { ppid: Number(fields[1]), ticks, systemTicks: Number(fields[12]) + Number(fields[14]) });
  }
  return processes;
}

/** CPU ticks of `rootPid` and all its descendants (every thread included). */
function treeTicks(rootPid) {
  const processes = allProcesses();
  const children = new Map();
  for (const [pid, { ppid }] of processes) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  let ticks = 0;
  const rootTicks = processes.get(rootPid)?.ticks ?? 0;
  const rootSystemTicks = processes.get(rootPid)?.systemTicks ?? 0;
  const pending = [rootPid];
  const pids = [];
  while (pending.length > 0) {
    const pid = pending.pop();
    const entry = processes.get(pid);
    if (!entry) continue;
    ticks += entry.ticks;
    pids.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return { ticks, rootTicks, rootSystemTicks, processes: pids.length };
}

/** Busy ticks of the whole machine, all cores (everything but idle and iowait). */
function machineBusyTicks() {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  return user + nice + system + irq + softirq + (steal ?? 0);
}

/**
 * Starts a measurement of the server `rootPid` (with its descendants); `stop()` gives its CPU
 * seconds, the bench process's own (the load generator), and the rest of the machine's, in cores.
 */
export function startCpuMeasurement(rootPid) {
  const before = { server: treeTicks(rootPid), machine: machineBusyTicks(), self: process.cpuUsage(), at: performance.now() };
  return {
    stop() {
      const server = treeTicks(rootPid);
      const seconds = (performance.now() - before.at) / 1000;
      const self = process.cpuUsage(before.self);
      const serverSeconds = (server.ticks - before.server.ticks) / TICKS_PER_SECOND;
      const loadGeneratorSeconds = (self.user + self.system) / 1e6;
      const machineSeconds = (machineBusyTicks() - before.machine) / TICKS_PER_SECOND;
      return {
        wallSeconds: seconds,
        serverCpuSeconds: serverSeconds,
        // The main process alone (the rest: its database, its workers).
        mainProcessCpuSeconds: (server.rootTicks - before.server.rootTicks) / TICKS_PER_SECOND,
        // Of which in the kernel (system time: socket writes and reads, the loopback's TCP work).
        mainProcessSystemSeconds: (server.rootSystemTicks - before.server.rootSystemTicks) / TICKS_PER_SECOND,
        serverProcesses: server.processes,
        loadGeneratorCpuSeconds: loadGeneratorSeconds,
        // Whatever else ran meanwhile (other users of the box), in cores on average.
        otherCores: Math.max(0, machineSeconds - serverSeconds - loadGeneratorSeconds) / seconds,
      };
    },
  };
}
