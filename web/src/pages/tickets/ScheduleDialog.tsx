import type { TicketView } from '@recado/contracts';
import { ScheduleDialog as ScheduleMessageDialog } from '../schedules/ScheduleDialog.js';

/** Schedule a message to the ticket's contact (docs/team-tools.md): the schedules module's dialog, contact fixed. */
export function ScheduleDialog({
  open,
  onClose,
  ticket,
}: {
  open: boolean;
  onClose(): void;
  ticket?: Pick<TicketView, 'id' | 'contact'> | null;
}) {
  return (
    <ScheduleMessageDialog
      open={open}
      onClose={onClose}
      contactId={ticket?.contact.id ?? null}
      ticketId={ticket?.id ?? null}
    />
  );
}
