import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One message a test SMTP server accepted: the SMTP envelope and the parsed MIME message. */
export interface CapturedMail {
  envelope: { from: string; to: string[] };
  mail: ParsedMail;
  /** Raw message as received. */
  raw: string;
}

export interface SmtpCapture {
  port: number;
  messages: CapturedMail[];
  /** Resolves once `count` messages have arrived. */
  waitFor(count: number): Promise<CapturedMail[]>;
  close(): Promise<void>;
  /**
   * Holds the next message at the end of DATA (its client waits for the server's answer) until
   * `release` is called; `arrived` resolves once that message is in. Later messages pass.
   */
  hold(): { arrived: Promise<void>; release: () => void };
  /** While true, recipients are refused with `550` (the send fails). */
  refuse: boolean;
  /** While set, the end of every message (DATA) is answered with this reply code (a server failing, e.g. 500); nothing is kept. */
  failData: number | null;
}

export interface SmtpCaptureOptions {
  /** TLS from the first byte (smtp-server's built-in self-signed certificate). */
  secure?: boolean;
  /** Offer STARTTLS (default true unless `secure`). */
  starttls?: boolean;
  /** Require AUTH with these credentials; without it no AUTH is offered. */
  auth?: { user: string; pass: string };
}

/** Starts a real SMTP server on a free local port that keeps every message it accepts. */
export async function startSmtpCapture(options: SmtpCaptureOptions = {}): Promise<SmtpCapture> {
  const messages: CapturedMail[] = [];
  const waiters: { count: number; resolve: (m: CapturedMail[]) => void }[] = [];
  let gate: { wait: Promise<void>; arrived: () => void } | null = null;
  const state: { refuse: boolean; failData: number | null } = { refuse: false, failData: null };
  const disabled: string[] = [];
  if (!options.auth) disabled.push('AUTH');
  if (options.starttls === false || options.secure) disabled.push('STARTTLS');
  const server = new SMTPServer({
    secure: options.secure ?? false,
    disabledCommands: disabled,
    authOptional: !options.auth,
    allowInsecureAuth: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) {
        callback(null, { user: auth.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onRcptTo(address, _session, callback) {
      if (state.refuse) callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        if (state.failData !== null) {
          callback(Object.assign(new Error('Internal server error'), { responseCode: state.failData }));
          return;
        }
        const held = gate;
        if (held) {
          gate = null;
          held.arrived();
          await held.wait;
        }
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (mail) => {
            messages.push({
              envelope: {
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to: session.envelope.rcptTo.map((r) => r.address),
              },
              mail,
              raw: raw.toString('utf8'),
            });
            for (const w of [...waiters]) {
              if (messages.length >= w.count) {
                waiters.splice(waiters.indexOf(w), 1);
                w.resolve(messages.slice());
              }
            }
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    get refuse() {
      return state.refuse;
    },
    set refuse(value: boolean) {
      state.refuse = value;
    },
    get failData() {
      return state.failData;
    },
    set failData(value: number | null) {
      state.failData = value;
    },
    hold() {
      let release!: () => void;
      let arrived!: () => void;
      const wait = new Promise<void>((resolve) => (release = resolve));
      const arrivedPromise = new Promise<void>((resolve) => (arrived = resolve));
      gate = { wait, arrived };
      return {
        arrived: arrivedPromise,
        release,
      };
    },
    waitFor(count) {
      if (messages.length >= count) return Promise.resolve(messages.slice());
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close: () => {
      gate?.arrived();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
