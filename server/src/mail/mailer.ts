import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * SMTP through nodemailer when SMTP_URL is set; otherwise each mail becomes a file in DATA_DIR/outbox
 * and the log says where (the body may hold a reset code, so it is not logged at info).
 */
export async function createMailer(opts: {
  smtpUrl?: string;
  from: string;
  outboxDir: string;
  log: FastifyBaseLogger;
}): Promise<Mailer> {
  if (opts.smtpUrl) {
    const { createTransport } = await import('nodemailer');
    const transport = createTransport(opts.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: opts.from, ...mail });
        opts.log.info({ to: mail.to, subject: mail.subject }, 'mail sent');
      },
    };
  }
  return {
    async send(mail) {
      await mkdir(opts.outboxDir, { recursive: true });
      const safeTo = mail.to.replace(/[^a-z0-9@._-]/gi, '_');
      // A random part keeps two mails of the same millisecond apart (one would overwrite the other).
      const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}`;
      const file = join(opts.outboxDir, `${stamp}-${safeTo}.eml`);
      const eml = `From: ${opts.from}\nTo: ${mail.to}\nSubject: ${mail.subject}\nDate: ${new Date().toUTCString()}\nContent-Type: text/plain; charset=utf-8\n\n${mail.text}\n`;
      await writeFile(file, eml, { mode: 0o600, flag: 'wx' });
      opts.log.info({ to: mail.to, subject: mail.subject, file }, 'mail written to the outbox');
      opts.log.debug({ body: mail.text }, 'outbox mail body');
    },
  };
}
