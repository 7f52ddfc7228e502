// Starts receiver.ts in a child process (tsx) and talks to its control routes.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const receiverPath = fileURLToPath(new URL('./receiver.ts', import.meta.url));

export interface ReceiverCount {
  verified: number;
  refused: number;
  duplicates: number;
  unique: number;
  types: Record<string, number>;
}

export interface ReceiverProcess {
  url: string;
  pid: number;
  setSecrets(secrets: string[]): Promise<void>;
  count(): Promise<ReceiverCount>;
  reset(): Promise<void>;
  /** Resolves once `unique` reaches `n`; rejects after `timeoutMs`. */
  waitForUnique(n: number, timeoutMs: number): Promise<ReceiverCount>;
  /** Resolves once no delivery has come for `quietMs`. */
  waitForQuiet(quietMs: number): Promise<ReceiverCount>;
  stop(): Promise<void>;
}

export function startReceiverProcess(): Promise<ReceiverProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', receiverPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.includes('"listening"'));
      if (!line) return;
      const url = (JSON.parse(line) as { url: string }).url;
      const control = async (path: string, body?: unknown) => {
        const res = await fetch(`${url}${path}`, { method: body === undefined && path === '/_count' ? 'GET' : 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        return res.status === 204 ? null : res.json();
      };
      const count = () => control('/_count') as Promise<ReceiverCount>;
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      resolve({
        url,
        pid: child.pid!,
        setSecrets: async (secrets) => void (await control('/_secrets', secrets)),
        count,
        reset: async () => void (await control('/_reset', {})),
        async waitForUnique(n, timeoutMs) {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            const c = await count();
            if (c.unique >= n) return c;
            if (Date.now() > deadline) throw new Error(`the receiver got ${c.unique} of ${n} deliveries in ${timeoutMs} ms`);
            await sleep(20);
          }
        },
        async waitForQuiet(quietMs) {
          let last = await count();
          for (;;) {
            await sleep(quietMs);
            const c = await count();
            if (c.verified + c.refused === last.verified + last.refused) return c;
            last = c;
          }
        },
        stop: () =>
          new Promise<void>((res) => {
            if (child.exitCode !== null) return void res();
            child.once('exit', () => res());
            child.kill('SIGTERM');
          }),
      });
    });
    child.on('exit', (code) => reject(new Error(`the receiver exited ${code} before listening`)));
  });
}
