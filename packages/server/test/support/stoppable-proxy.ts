import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

/**
 * A TCP proxy in a child process, for silent network partitions: `pause()` sends it SIGSTOP, so
 * open connections stay open and new ones are still accepted by the kernel, but no byte is relayed
 * and nothing is refused or reset (as when a switch or a VM stops forwarding). `resume()` sends
 * SIGCONT. Unlike closing a port, nothing tells the client that the far side is gone.
 */
export interface StoppableProxy {
  port: number;
  pause(): void;
  resume(): void;
  /**
   * From now on new connections are accepted but never relayed (no greeting, no refusal), while
   * the open ones keep relaying: a database too starved to take a connection that still answers
   * the ones it has. Resolves once the proxy holds new connections.
   */
  holdNewConnections(): Promise<void>;
  stop(): Promise<void>;
}

const PROXY = `
const net = require('node:net');
const [host, port] = [process.argv[1], Number(process.argv[2])];
let holding = false;
process.on('SIGUSR1', () => { holding = true; process.stdout.write('holding\\n'); });
const server = net.createServer((client) => {
  if (holding) return void client.on('error', () => client.destroy());
  const upstream = net.connect(port, host);
  const end = () => { client.destroy(); upstream.destroy(); };
  client.on('error', end); upstream.on('error', end); client.on('close', end); upstream.on('close', end);
  client.pipe(upstream).pipe(client);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

export async function startStoppableProxy(target: { host: string; port: number }): Promise<StoppableProxy> {
  const child: ChildProcess = spawn(process.execPath, ['-e', PROXY, target.host, String(target.port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(Number(out.split('\n')[0]));
    });
    child.once('exit', (code) => reject(new Error(`proxy exited ${code}`)));
  });
  return {
    port,
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    holdNewConnections: () =>
      new Promise<void>((resolve) => {
        const acknowledged = () => {
          if (!out.includes('holding')) return;
          child.stdout!.off('data', acknowledged);
          resolve();
        };
        child.stdout!.on('data', acknowledged);
        child.kill('SIGUSR1');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }),
  };
}
