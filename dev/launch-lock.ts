// One launcher per DATA_DIR. The lock is a local socket the launcher listens on, so the kernel
// releases it when the launcher's process ends, however it ends (SIGKILL included), even while the
// process lingers as a zombie that its parent has not reaped (a pid file cannot tell: a zombie's pid
// still answers kill(pid, 0)). A second launcher that finds the lock held connects and is told the
// holder's state: a launcher that is stopping is waited for, one that starts or runs is refused.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export type LauncherState = 'starting' | 'running' | 'stopping';

export interface LaunchLock {
  /** What the launcher tells a second launcher that asks. */
  setState(state: LauncherState): void;
}

interface HolderAnswer {
  pid: number;
  state: LauncherState;
}

/** How long a new launcher waits for one that is stopping: the launcher's own stop is bounded well below. */
export const STOPPING_WAIT_MS = 60_000;
/** A holder answers at once; one that does not is stuck, not stopping. */
const ANSWER_TIMEOUT_MS = 10_000;

/**
 * Linux: an abstract socket, which has no file, binds atomically and vanishes with its process.
 * Windows: a named pipe, which behaves the same. Elsewhere: a socket file, short enough for the
 * ~104 bytes a socket path may hold; a stale file (its process gone) is noticed by a refused
 * connection and replaced.
 */
export function lockAddress(dataDir: string): { address: string; isFile: boolean } {
  const id = createHash('sha256').update(fs.realpathSync(dataDir)).digest('hex');
  if (process.platform === 'linux') return { address: `\0agent-service-launcher-${id}`, isFile: false };
  if (process.platform === 'win32') return { address: `\\\\.\\pipe\\agent-service-launcher-${id}`, isFile: false };
  return { address: path.join(os.tmpdir(), `agent-service-launcher-${id.slice(0, 16)}.sock`), isFile: true };
}

function tryListen(address: string): Promise<net.Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(undefined) : reject(error)));
    server.listen(address, () => resolve(server));
  });
}

type Holder = { gone: true } | { gone: false; answer: HolderAnswer; closed: Promise<void>; socket: net.Socket };

/** Connects to the holder and reads its one-line answer; the connection stays open until the holder's process ends. */
function askHolder(address: string): Promise<Holder> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(address);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    let buffered = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('Another launcher holds this DATA_DIR but does not answer.'));
    }, ANSWER_TIMEOUT_MS);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT' || error.code === 'ECONNRESET') resolve({ gone: true });
      else reject(error);
    });
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      if (!buffered.includes('\n')) return;
      clearTimeout(timer);
      socket.removeAllListeners('data');
      resolve({ gone: false, answer: JSON.parse(buffered.split('\n')[0]!) as HolderAnswer, closed, socket });
    });
    // Closed without an answer: the holder ended while we connected.
    void closed.then(() => {
      clearTimeout(timer);
      resolve({ gone: true });
    });
  });
}

function hold(server: net.Server, address: string, isFile: boolean): LaunchLock {
  let state: LauncherState = 'starting';
  // Never keeps the launcher alive by itself: the launcher ends with process.exit once stopped.
  server.unref();
  server.on('connection', (socket) => {
    socket.unref();
    socket.on('error', () => undefined);
    // Left open: the asker learns that this process has ended when the kernel closes it.
    socket.write(`${JSON.stringify({ pid: process.pid, state } satisfies HolderAnswer)}\n`);
  });
  if (isFile) process.once('exit', () => fs.rmSync(address, { force: true }));
  return {
    setState(next) {
      state = next;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Takes the lock of `dataDir`, waiting up to `waitMs` (saying so once) for a launcher that is
 * stopping. Throws, with a message for the console, when another launcher starts or runs there.
 */
export async function acquireLaunchLock(dataDir: string, say: (line: string) => void, waitMs = STOPPING_WAIT_MS): Promise<LaunchLock> {
  const { address, isFile } = lockAddress(dataDir);
  const deadline = Date.now() + waitMs;
  let announced = false;
  for (;;) {
    const server = await tryListen(address);
    if (server) return hold(server, address, isFile);
    const holder = await askHolder(address);
    if (holder.gone) {
      // A socket file outlives a killed process; an abstract socket or pipe was released just now.
      if (isFile) fs.rmSync(address, { force: true });
      else await sleep(50);
      continue;
    }
    const { pid, state } = holder.answer;
    if (state !== 'stopping') {
      holder.socket.destroy();
      throw new Error(`Another launcher (pid ${pid}) is running with DATA_DIR=${dataDir}. Stop it first, or use another DATA_DIR.`);
    }
    if (!announced) {
      say(
        `Another launcher (pid ${pid}) is still stopping with DATA_DIR=${dataDir}; waiting for it (up to ${Math.round(waitMs / 1000)} s)...`,
      );
      announced = true;
    }
    const ended = await Promise.race([holder.closed.then(() => true), sleep(Math.max(0, deadline - Date.now())).then(() => false)]);
    if (!ended) {
      holder.socket.destroy();
      throw new Error(
        `The launcher (pid ${pid}) with DATA_DIR=${dataDir} is still stopping after ${Math.round(waitMs / 1000)} s. Try again when it has stopped.`,
      );
    }
  }
}
