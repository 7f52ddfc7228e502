/**
 * What a vendor is told when an e-mail could not be sent. The mail server's reply code and the
 * SMTP command it answered (or the kind of connection failure) say what went wrong; the reply's
 * text is not repeated, since it may name the operator's hosts or accounts: the operator's log
 * keeps the whole error (`onSendError`).
 */
export interface SendFailure {
  /** One sentence for the vendor, starting with what could not be sent (`subject`). */
  message: string;
  /** A short code for the request log: `smtp_<reply code>`, the transport's error code, or `unknown`. */
  reason: string;
}

/** nodemailer's codes of a connection that failed before the server answered. */
const UNREACHED: Readonly<Record<string, string>> = {
  ECONNECTION: 'could not be reached',
  EDNS: 'could not be found (DNS)',
  ETIMEDOUT: 'did not answer in time',
  ESOCKET: 'closed the connection',
  ETLS: 'could not be reached over TLS',
};

/**
 * Describes a failed send of `subject` (e.g. "The license-key e-mail") from the mailer's error.
 *
 * @example
 * ```ts
 * describeSendFailure('The license-key e-mail', smtpError).message;
 * // 'The license-key e-mail could not be sent: the mail server answered 550 to RCPT TO. Retry later; ...'
 * ```
 */
export function describeSendFailure(subject: string, error: unknown): SendFailure {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { responseCode?: unknown; command?: unknown; code?: unknown };
  const after = 'Retry later; if it keeps failing, the service\'s operator finds the mail server\'s full answer in the log.';
  if (typeof e.responseCode === 'number' && e.responseCode >= 200 && e.responseCode < 600) {
    const command = typeof e.command === 'string' && /^[A-Z][A-Z ]{1,15}$/.test(e.command) ? ` to ${e.command}` : '';
    return { message: `${subject} could not be sent: the mail server answered ${e.responseCode}${command}. ${after}`, reason: `smtp_${e.responseCode}` };
  }
  const code = typeof e.code === 'string' ? e.code : '';
  const unreached = UNREACHED[code];
  if (unreached !== undefined) return { message: `${subject} could not be sent: the mail server ${unreached}. ${after}`, reason: code.toLowerCase() };
  return { message: `${subject} could not be sent; retry later.`, reason: 'unknown' };
}
