import { formatNumber, type TicketView } from '@recado/contracts';
import { ContactAvatar } from '../../components/ContactAvatar.js';

/** The contact's picture, or initials on a colour of their own. Light: the top bar uses it too. */
export function TicketAvatar({ contact, size = 44 }: { contact: TicketView['contact']; size?: number }) {
  return <ContactAvatar contact={contact} size={size} />;
}

const MEDIA_PREVIEW =
  /^\[(image|audio|video|application|document|sticker|locationMessage|vcard|contactMessage|call_log)\]$/;

/** The server's preview of a media message ("[image]") in the user's language. */
export function lastMessageLabel(preview: string, t: (key: string) => string) {
  const media = MEDIA_PREVIEW.exec(preview.trim());
  if (!media) return preview;
  const type = media[1] === 'document' || media[1] === 'sticker' ? 'application' : media[1]!;
  return `📎 ${t(`tickets.media.${type}`)}`;
}

export const contactLabel = (c: TicketView['contact']) =>
  c.name && c.name !== c.number ? c.name : formatNumber(c.number);
