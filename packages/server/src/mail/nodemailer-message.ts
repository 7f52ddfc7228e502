import type { SendMailOptions } from 'nodemailer';
import type { MailMessage } from './mailer.js';

/** Maps our message onto nodemailer's options; nodemailer does all MIME encoding. */
export function toNodemailerMessage(message: MailMessage): SendMailOptions {
  const options: SendMailOptions = {
    from: { name: message.from.name, address: message.from.address },
    to: message.to.name ? { name: message.to.name, address: message.to.address } : message.to.address,
    subject: message.subject,
    text: message.text,
    html: message.html,
    headers: { 'Content-Language': message.language },
  };
  if (message.replyTo) options.replyTo = message.replyTo;
  // nodemailer signs the finished message (relaxed/relaxed, rsa-sha256) before it is sent or written.
  if (message.dkim) options.dkim = { domainName: message.dkim.domainName, keySelector: message.dkim.keySelector, privateKey: message.dkim.privateKey };
  return options;
}
