/**
 * One line per request. Only the path is logged (IDs are not secret); never the query string
 * (it may hold a license key or an e-mail), never a body, never a header.
 */
export interface RequestLogLine {
  time: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  /** The authenticated account, when the request carried a valid API key. */
  account?: string;
  /** The error code of an error response. */
  error?: string;
  /** For `internal_error` only: what went wrong, for the operator. */
  cause?: string;
  /** Why a request was refused where the code alone does not say (the webhook receiver's failed signature check). */
  reason?: string;
}

/** Receives one line per request. */
export type RequestLogger = (line: RequestLogLine) => void;

/**
 * Writes each line as one JSON object to a stream (stdout by default). Lines of requests that end
 * in the same event-loop turn go out in one write (at `setImmediate`, or at once past 64 KiB):
 * a write per request costed a tenth of a busy server's CPU.
 *
 * @example
 * const app = createApp({ engine, publicBaseUrl, log: createJsonLogger(process.stderr) });
 */
export function createJsonLogger(stream: { write(text: string): unknown } = process.stdout): RequestLogger {
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    stream.write(text);
  };
  return (line) => {
    pending += `${JSON.stringify(line)}\n`;
    if (pending.length > 65_536) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}

let isoMs = -1;
let isoText = '';
/** `new Date().toISOString()`, formatted once per millisecond (a busy server logs many lines in one). */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}

/** A short description of an unexpected error for the log (name, message, first stack frames). */
export function describeCause(error: unknown): string {
  if (error instanceof Error) {
    const frames = (error.stack ?? '').split('\n').slice(1, 4).map((f) => f.trim()).join(' | ');
    return `${error.name}: ${error.message}${frames ? ` @ ${frames}` : ''}`;
  }
  return String(error);
}
