/**
 * Every process an agent command started, found again when it is time to stop
 * them: its process group and session (the agent is started in its own
 * session), its descendants, and, because `setsid` and a parent that exits
 * take a process out of all three, every process whose environment carries
 * the agent's tag (`ONEWAY_AGENT_TAG`, inherited unless a process clears its
 * environment). On Linux the processes are read from /proc; elsewhere only
 * the process group is known.
 *
 * @example
 * const pids = agentProcesses({ pid: child.pid, tag }); // e.g. [4242, 4250, 4301]
 * await stopProcesses({ pid: child.pid, tag }, 1000);
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The environment variable that marks an agent's processes (its value is unique per run). */
export const AGENT_TAG_ENV = 'ONEWAY_AGENT_TAG';

export interface AgentTree {
  /** The agent's pid: the leader of its process group and session. */
  pid: number;
  /** The value of AGENT_TAG_ENV in the agent's environment. */
  tag: string;
}

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  zombie: boolean;
}

const hasProc = process.platform === 'linux';

function readProcs(): Proc[] {
  const out: Proc[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({
        pid: Number(name),
        ppid: Number(fields[1]),
        pgid: Number(fields[2]),
        sid: Number(fields[3]),
        zombie: fields[0] === 'Z' || fields[0] === 'X',
      });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function tagged(pid: number, marker: Buffer): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`).includes(marker);
  } catch {
    return false; // gone, or not ours to read
  }
}

/** Our own pid and our ancestors: never signalled, whatever they carry. */
function protectedPids(procs: Proc[]): Set<number> {
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const out = new Set<number>([process.pid, 0, 1]);
  for (let p = byPid.get(process.pid); p && !out.has(p.ppid); p = byPid.get(p.ppid)) out.add(p.ppid);
  return out;
}

/** The live (not zombie) processes of an agent, the agent itself included while it runs. */
function agentProcesses(tree: AgentTree): number[] {
  if (!hasProc) return [];
  const procs = readProcs().filter((p) => !p.zombie);
  const keep = protectedPids(procs);
  const found = new Set<number>();
  for (const p of procs) if (p.pid === tree.pid || p.pgid === tree.pid || p.sid === tree.pid) found.add(p.pid);
  const marker = Buffer.from(`\0${AGENT_TAG_ENV}=${tree.tag}\0`);
  const first = Buffer.from(`${AGENT_TAG_ENV}=${tree.tag}\0`);
  for (const p of procs) {
    if (found.has(p.pid) || keep.has(p.pid)) continue;
    if (tagged(p.pid, marker) || startsWith(p.pid, first)) found.add(p.pid);
  }
  // Descendants of anything found (a child that cleared its environment but has not been orphaned).
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) {
      if (!found.has(p.pid) && found.has(p.ppid)) {
        found.add(p.pid);
        grew = true;
      }
    }
  }
  for (const k of keep) found.delete(k);
  return [...found];
}

/** The tag as the first variable of the environment (no NUL before it). */
function startsWith(pid: number, first: Buffer): boolean {
  try {
    const env = readFileSync(`/proc/${pid}/environ`);
    return env.subarray(0, first.length).equals(first);
  } catch {
    return false;
  }
}

function signalAll(tree: AgentTree, signal: NodeJS.Signals): number[] {
  const pids = agentProcesses(tree);
  const send = (pid: number) => {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  };
  if (process.platform === 'win32') send(tree.pid);
  else send(-tree.pid); // the process group, everywhere
  for (const pid of pids) send(pid);
  return pids;
}

/** Signals every process of the agent now (for `process.on('exit')`, which cannot wait). */
export function killProcessesNow(tree: AgentTree, signal: NodeJS.Signals = 'SIGKILL'): void {
  signalAll(tree, signal);
}

/** Whether the agent still has a live process (on Linux; elsewhere whether its group answers). */
function anyAlive(tree: AgentTree): boolean {
  if (hasProc) return agentProcesses(tree).length > 0;
  try {
    process.kill(-tree.pid, 0);
    return true;
  } catch {
    return false;
  }
}

const POLL_MS = 50;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/**
 * SIGTERM to every process of the agent; whatever is left after `killAfterMs`, SIGKILL (looked
 * up again: a process may have started meanwhile). Resolves once none is left, or after a second
 * more at most (a process stuck in the kernel cannot be waited for).
 */
export async function stopProcesses(tree: AgentTree, killAfterMs: number): Promise<void> {
  signalAll(tree, 'SIGTERM');
  for (let waited = 0; waited < killAfterMs && anyAlive(tree); waited += POLL_MS) await sleep(POLL_MS);
  if (!anyAlive(tree)) return;
  signalAll(tree, 'SIGKILL');
  for (let waited = 0; waited < 1000 && anyAlive(tree); waited += POLL_MS) await sleep(POLL_MS);
}
