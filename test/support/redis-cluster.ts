/**
 * A real three-node Redis Cluster for a test: `redis-server --cluster-enabled
 * yes` on free loopback ports, joined by `redis-cli --cluster create`, removed
 * again by `stop()`. Managed Redis is often a cluster; a mock would not show
 * whether our scripts respect its one-slot rule.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { track } from './children.js';

const run = promisify(execFile);

export interface RedisCluster {
  /** A seed node's URL (`redis://127.0.0.1:port`). */
  url: string;
  ports: number[];
  /** Kills node `i` (SIGKILL), as a crashed or unreachable master. */
  killNode(i: number): Promise<void>;
  /** Starts node `i` again, empty, on its port and cluster config (it takes its slots back), and waits for the cluster. */
  restartNode(i: number): Promise<void>;
  /** Stops node `i` (SIGSTOP) and lets it go on (SIGCONT): a stalled master. */
  pauseNode(i: number): void;
  resumeNode(i: number): void;
  /** The index of the node serving the slot of `key` (`{tag}` rules apply). */
  nodeFor(key: string): Promise<number>;
  stop(): Promise<void>;
}

/** Whether `redis-server` and `redis-cli` are installed (CI has both). */
export async function clusterToolsAvailable(): Promise<boolean> {
  try {
    await run('redis-server', ['--version']);
    await run('redis-cli', ['--version']);
    return true;
  } catch {
    return false;
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A port whose cluster bus port (port + 10000) is free too. */
async function freePort(taken: Set<number>): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await portFree(port)) && (await portFree(port + 10_000))) {
      taken.add(port);
      taken.add(port + 10_000);
      return port;
    }
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

export async function startRedisCluster(nodes = 3): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'mds-cluster-'));
  const taken = new Set<number>();
  const ports: number[] = [];
  const procs: ChildProcess[] = [];
  const kill = (p: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (p.exitCode !== null || p.signalCode !== null) return resolve();
      p.once('exit', () => resolve());
      p.kill('SIGCONT'); // a paused node would not take the kill until resumed
      p.kill('SIGKILL');
    });
  const stop = async () => {
    await Promise.all(procs.map(kill));
    rmSync(dir, { recursive: true, force: true });
  };
  const startNode = (i: number) => {
    const port = ports[i]!;
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        '2000',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    );
    track(proc, `redis-server --cluster-enabled --port ${port}`);
    procs[i] = proc;
  };
  const clusterOk = async () => {
    for (const port of ports)
      await waitFor(async () => (await cli(port, 'cluster', 'info')).includes('cluster_state:ok'));
  };
  try {
    for (let i = 0; i < nodes; i++) {
      ports.push(await freePort(taken));
      startNode(i);
    }
    for (const port of ports) await waitFor(async () => (await cli(port, 'ping')).trim() === 'PONG');
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await clusterOk();
    return {
      url: `redis://127.0.0.1:${ports[0]}`,
      ports,
      killNode: (i) => kill(procs[i]!),
      async restartNode(i) {
        await kill(procs[i]!);
        startNode(i);
        await waitFor(async () => (await cli(ports[i]!, 'ping')).trim() === 'PONG');
        await clusterOk();
      },
      pauseNode: (i) => procs[i]!.kill('SIGSTOP'),
      resumeNode: (i) => procs[i]!.kill('SIGCONT'),
      async nodeFor(key) {
        const slot = Number((await cli(ports[0]!, 'cluster', 'keyslot', key)).trim());
        // CLUSTER NODES: `<id> <ip>:<port>@<bus> <flags> <master> <ping> <pong> <epoch> <link> <slot ranges…>`
        for (const line of (await cli(ports[0]!, 'cluster', 'nodes')).split('\n')) {
          const f = line.trim().split(/\s+/);
          const port = Number(/:(\d+)@/.exec(f[1] ?? '')?.[1]);
          for (const range of f.slice(8)) {
            const [lo, hi = lo] = range.split('-').map(Number);
            if (lo !== undefined && slot >= lo && slot <= hi!) return ports.indexOf(port);
          }
        }
        throw new Error(`no node serves slot ${slot} of ${key}`);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function cli(port: number, ...args: string[]): Promise<string> {
  try {
    return (await run('redis-cli', ['-p', String(port), ...args])).stdout;
  } catch {
    return '';
  }
}

async function waitFor(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('Redis Cluster did not come up in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
