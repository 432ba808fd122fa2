import { Avatar } from '@mui/material';
import { contactAvatar } from './avatar.js';

/** A contact's picture, or their initials on their own colour (the same on every screen). */
export function ContactAvatar({
  contact,
  size = 44,
}: {
  contact: { name: string; number: string; profilePicUrl?: string | null };
  size?: number;
}) {
  const { color, initials } = contactAvatar(contact);
  return (
    <Avatar
      src={contact.profilePicUrl || undefined}
      alt={contact.name || contact.number}
      data-avatar-color={color}
      sx={{ width: size, height: size, bgcolor: color, color: '#fff', fontSize: size * 0.38 }}
    >
      {initials}
    </Avatar>
  );
}
