/**
 * One colour per contact wherever a contact has no picture (tickets, contacts, notifications, kanban, the
 * simulator), so the same person looks the same on every screen. Keyed by the phone number: a contact's
 * identity, which a rename does not change.
 */
const AVATAR_COLORS = [
  '#00a884',
  '#2a6fdb',
  '#7f66ff',
  '#ef6c00',
  '#c2185b',
  '#00897b',
  '#5c6bc0',
  '#8d6e63',
];

export const avatarColor = (key: string) =>
  AVATAR_COLORS[[...key].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 9973, 7) % AVATAR_COLORS.length]!;

/** Up to two initials of the words that start with a letter; '#' for a name that is only a number. */
export const initials = (name: string) =>
  name
    .split(/\s+/)
    .filter((p) => /\p{L}/u.test(p))
    .slice(0, 2)
    .map((p) => p[0]!.toUpperCase())
    .join('') || '#';

/** The key and the initials of a contact's avatar: a name equal to the number has no initials. */
export function contactAvatar(contact: { name: string; number: string }) {
  const named = contact.name && contact.name !== contact.number ? contact.name : '';
  return { color: avatarColor(contact.number || contact.name), initials: initials(named) };
}
