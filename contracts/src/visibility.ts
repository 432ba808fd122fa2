/**
 * Who may see a ticket (docs/visibility.md): the one rule behind the server's socket rooms, ticket lists, single
 * reads, notes, schedules and simulator views, and the web's live lists and notifications.
 *
 * The rule is data: a list of grants. Each grant says which viewers hold it (`holds`) and which tickets it
 * covers (`covers`), both as keys ("queue-3", "user-7", …). A viewer sees a ticket when one of its keys is
 * among the ticket's keys. The same keys name the socket rooms (a ticket's events go to the rooms of its
 * keys, a socket joins the rooms of its viewer's keys) and the server turns each grant into SQL, so rooms,
 * lists and reads cannot disagree.
 */

export interface VisibilityViewer {
  userId: number;
  profile: string;
  super?: boolean;
  queueIds: readonly number[];
  showQueuelessTickets: boolean;
  /** 'enabled': every waiting ticket that has a queue. */
  allTicket?: string;
  /**
   * #30.4 The company's "attendants see only their own contacts and those without owner": every grant but
   * the viewer's own tickets ('user') narrows to contacts the viewer owns or nobody owns.
   */
  ownContactsOnly?: boolean;
}

export interface VisibilityTicket {
  userId: number | null;
  queueId: number | null;
  status: string;
  /**
   * The contact's owner (#30.4): null, nobody's. Left out (a bare ticket row): unknown, and only viewers
   * without the own-contacts rule, or the ticket's own attendant, see it.
   */
  contact?: { ownerId?: number | null } | null;
}

/** #30.4 A restricted viewer's key for a grant's key: the contacts it owns, or nobody's. */
const ownKey = (key: string, ownerId: number | null) =>
  ownerId === null ? `${key}~unowned` : `${key}~own-${ownerId}`;
/** Keys the own-contacts rule leaves as they are: the manager's and the viewer's own tickets. */
const unrestricted = (key: string) => key === 'all' || key.startsWith('user-');

/** Admins, supervisors (#30.8) and super users: every ticket of their company. */
export const isTicketManager = (v: Pick<VisibilityViewer, 'profile' | 'super'>) =>
  v.profile === 'admin' || v.profile === 'supervisor' || Boolean(v.super);

export const VISIBILITY_GRANTS = [
  {
    grant: 'all',
    holds: (v: VisibilityViewer) => (isTicketManager(v) ? ['all'] : []),
    covers: () => ['all'],
  },
  {
    grant: 'user',
    /** The tickets assigned to the viewer. */
    holds: (v: VisibilityViewer) => [`user-${v.userId}`],
    covers: (t: VisibilityTicket) => (t.userId ? [`user-${t.userId}`] : []),
  },
  {
    grant: 'queue',
    /** The tickets of the viewer's queues. */
    holds: (v: VisibilityViewer) => v.queueIds.map((q) => `queue-${q}`),
    covers: (t: VisibilityTicket) => (t.queueId !== null ? [`queue-${t.queueId}`] : []),
  },
  {
    grant: 'queueless',
    /** Tickets without a queue, for users with showQueuelessTickets. */
    holds: (v: VisibilityViewer) => (v.showQueuelessTickets ? ['queueless'] : []),
    covers: (t: VisibilityTicket) => (t.queueId === null ? ['queueless'] : []),
  },
  {
    grant: 'waiting',
    /** allTicket enabled: the waiting tickets of every queue. */
    holds: (v: VisibilityViewer) => (v.allTicket === 'enabled' ? ['waiting'] : []),
    covers: (t: VisibilityTicket) => (t.status === 'pending' && t.queueId !== null ? ['waiting'] : []),
  },
] as const;

export type VisibilityGrant = (typeof VISIBILITY_GRANTS)[number]['grant'];

/**
 * The keys a viewer holds. A manager holds only 'all': its sockets join one room per list, not one per
 * queue, and 'all' covers every ticket.
 */
export function viewerKeys(v: VisibilityViewer): string[] {
  if (isTicketManager(v)) return ['all'];
  const keys = VISIBILITY_GRANTS.flatMap((g) => [...g.holds(v)]);
  if (!v.ownContactsOnly) return keys;
  // The own-contacts rule (#30.4): each grant's key narrows to "owned by me" and "owned by nobody".
  return keys.flatMap((k) => (unrestricted(k) ? [k] : [ownKey(k, v.userId), ownKey(k, null)]));
}

/** The keys that cover a ticket: whoever holds one of them may see it. */
export function ticketKeys(t: VisibilityTicket): string[] {
  const keys = VISIBILITY_GRANTS.flatMap((g) => [...g.covers(t)]);
  const owner = t.contact?.ownerId;
  if (owner === undefined) return keys;
  return [...keys, ...keys.filter((k) => !unrestricted(k)).map((k) => ownKey(k, owner))];
}

/** #30.4 Whether a viewer may see a contact: its owner, a contact nobody owns, or the rule off (managers always). */
export const canSeeContact = (v: VisibilityViewer, c: { ownerId: number | null }) =>
  isTicketManager(v) || !v.ownContactsOnly || c.ownerId === null || c.ownerId === v.userId;

/** Splits a restricted key ("queue-3~own-7") into its grant's key and the owner it needs (null: nobody). */
export function splitOwnKey(key: string): { key: string; owner?: number | null } {
  const [base, own] = key.split('~');
  if (own === undefined) return { key: base! };
  return { key: base!, owner: own === 'unowned' ? null : Number(own.slice(4)) };
}

export function canSeeTicket(v: VisibilityViewer, t: VisibilityTicket): boolean {
  const mine = new Set(viewerKeys(v));
  return ticketKeys(t).some((k) => mine.has(k));
}

/**
 * The room scopes that carry ticket events: the notification list, and one per ticket status list
 * (joinTickets 'open', 'pending', …), and the schedules of tickets (join 'schedules': the schedules screen).
 * Each scope has one room per key.
 */
export type VisibilityScope = 'notification' | 'schedules' | `tickets-${string}`;
export const statusScope = (status: string): VisibilityScope => `tickets-${status}`;

/** A scope's room for a key. The managers' 'all' room is the scope's plain name (company-3-tickets-open). */
export const visibilityRoom = (companyId: number, scope: VisibilityScope, key: string) =>
  key === 'all' ? `company-${companyId}-${scope}` : `company-${companyId}-${scope}-${key}`;

/** Whether a room belongs to a scope (a new join of the scope replaces the socket's old set). */
export const isScopeRoom = (companyId: number, scope: VisibilityScope, room: string) => {
  const base = `company-${companyId}-${scope}`;
  return room === base || room.startsWith(`${base}-`);
};

/** The rooms of a scope a viewer joins. */
export const viewerRooms = (companyId: number, scope: VisibilityScope, v: VisibilityViewer) =>
  viewerKeys(v).map((k) => visibilityRoom(companyId, scope, k));

/** The rooms of a scope that should hear about a ticket: those of everyone who may see it. */
export const ticketRooms = (companyId: number, scope: VisibilityScope, t: VisibilityTicket) =>
  ticketKeys(t).map((k) => visibilityRoom(companyId, scope, k));
