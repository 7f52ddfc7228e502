// A request written by hand on a socket, for what fetch cannot do: send a body slowly, stop in the
// middle of it, and see whether the server closed the connection.
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A request written by hand on a socket, its body sent as the test decides. */
export interface Upload {
  /** Body bytes handed to the socket so far. */
  sent(): number;
  /** Sends `bytes` more body bytes (chunked framing when the length was not declared); stops early once the server closed. */
  send(bytes: number): Promise<void>;
  /** Sends `text` as body bytes, as they are (chunked framing when the length was not declared). */
  sendText(text: string): Promise<void>;
  /** The answer, or a rejection after `ms` saying how many body bytes had been sent. */
  answer(ms?: number): Promise<RawAnswer & { sentBeforeAnswer: number }>;
  /** Resolves once the server has closed the connection, or rejects after `ms`. */
  closedByServer(ms?: number): Promise<void>;
  destroy(): void;
}

/** The body of an answer once all of it is in (by its length or its chunked framing), else null. */
function bodyOf(bytes: Buffer, headers: Record<string, string>): string | null {
  if (headers['transfer-encoding'] !== 'chunked') {
    return bytes.length >= Number(headers['content-length'] ?? 0) ? bytes.toString('utf8') : null;
  }
  const parts: Buffer[] = [];
  for (let at = 0; ; ) {
    const line = bytes.indexOf('\r\n', at);
    if (line < 0) return null;
    const size = parseInt(bytes.subarray(at, line).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts).toString('utf8');
    if (bytes.length < line + 2 + size + 2) return null;
    parts.push(bytes.subarray(line + 2, line + 2 + size));
    at = line + 2 + size + 2;
  }
}

/**
 * Opens a POST to `path` written by hand on a socket, with `headers` and a body the test sends
 * bit by bit: of a declared `declaredLength`, or chunked when it is null.
 */
export function openUpload(origin: string, path: string, headers: Record<string, string>, declaredLength: number | null): Upload {
  const { hostname, port } = new URL(origin);
  const socket: Socket = connect(Number(port), hostname);
  socket.on('error', () => undefined); // a reset after the server closed: seen through `closed`
  let sent = 0;
  let closed = false;
  let received = Buffer.alloc(0);
  let sentBeforeAnswer = -1;
  const closedPromise = new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve())));
  const parsed = new Promise<RawAnswer>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      if (sentBeforeAnswer < 0) sentBeforeAnswer = sent;
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const body = bodyOf(received.subarray(end + 4), headers);
      if (body !== null) resolve({ status: Number(statusLine!.split(' ')[1]), headers, body });
    });
  });
  const head = [
    `POST ${path} HTTP/1.1`,
    `host: ${new URL(origin).host}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    declaredLength === null ? 'transfer-encoding: chunked' : `content-length: ${declaredLength}`,
  ];
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const timeout = (ms: number, what: () => string) =>
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(what())), ms).unref());
  return {
    sent: () => sent,
    async send(bytes) {
      let left = bytes;
      while (left > 0 && !closed) {
        const part = chunk.subarray(0, Math.min(left, chunk.length));
        const framed = declaredLength === null ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part;
        const more = socket.write(framed);
        sent += part.length;
        left -= part.length;
        if (!more) await Promise.race([new Promise((r) => socket.once('drain', r)), closedPromise]);
      }
    },
    async sendText(text) {
      const part = Buffer.from(text, 'utf8');
      socket.write(declaredLength === null ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part);
      sent += part.length;
    },
    async answer(ms = 5000) {
      const answer = await Promise.race([parsed, timeout(ms, () => `no answer within ${ms} ms after ${sent} body bytes: the server is waiting for the rest of the body`)]);
      return { ...answer, sentBeforeAnswer };
    },
    closedByServer: (ms = 5000) => Promise.race([closedPromise, timeout(ms, () => `the server kept the connection open ${ms} ms after its answer`)]),
    destroy: () => socket.destroy(),
  };
}
