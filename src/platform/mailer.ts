import nodemailer from 'nodemailer';

export type MailMessage = { to: string; subject: string; text: string };

/** Sends e-mail (invitations); `null` when no SMTP server is configured. */
export type Mailer = { send(message: MailMessage): Promise<void> };

/**
 * An SMTP mailer from `SMTP_URL` (nodemailer). The sender is `no-reply@` the host of
 * PUBLIC_BASE_URL, named after the service; short timeouts, so an unreachable server fails the
 * e-mail (the invitation link is still shown) instead of holding the request.
 */
export function createMailer(config: { smtpUrl: string | undefined; publicBaseUrl: string; serviceName: string }): Mailer | null {
  if (!config.smtpUrl) return null;
  const transport = nodemailer.createTransport({ url: config.smtpUrl, connectionTimeout: 5000, greetingTimeout: 5000, socketTimeout: 10_000 });
  const from = { name: config.serviceName, address: `no-reply@${new URL(config.publicBaseUrl).hostname}` };
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
  };
}
