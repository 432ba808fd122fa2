import { AppError } from '../../http/errors.js';

export const EMAIL = /^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/;

/** "a@x.com, b@y.com; c@z.com" → "a@x.com, b@y.com, c@z.com", or ERR_VALIDATION (at most 20). */
export function normaliseEmailList(value: string): string {
  const list = value
    .split(/[\s,;]+/)
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = list.find((e) => !EMAIL.test(e) || e.length > 254);
  if (bad || list.length > 20)
    throw new AppError(
      'ERR_VALIDATION',
      400,
      bad ? `not an e-mail address: ${bad}` : 'at most 20 addresses',
      {
        fields: [{ path: 'connectionAlertEmails', message: bad ? 'invalid e-mail' : 'too many' }],
      },
    );
  return [...new Set(list)].join(', ');
}
