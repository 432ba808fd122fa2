import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';
import { ContactEmail, ContactNumber } from './contacts.js';
import { ListQuery } from './users.js';

const Id = z.coerce.number().int().positive().max(2_147_483_647);

/** docs/campaigns.md: a contact list's name is required, 2 to 50 characters. */
export const ContactListInput = z.object({ name: z.string().trim().min(2).max(50) });
export type ContactListInput = z.infer<typeof ContactListInput>;

export const ContactListsQuery = ListQuery;
export type ContactListsQuery = z.infer<typeof ContactListsQuery>;

export const ContactList = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    /** How many items the list holds. */
    contactsCount: z.number(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'ContactList' });
export type ContactList = Wire<typeof ContactList>;

/** GET /contact-lists: { records, hasMore }. */
export const ContactListPage = z
  .looseObject({
    records: z.array(ContactList),
    hasMore: z.boolean(),
  })
  .meta({ id: 'ContactListPage' });
export type ContactListPage = Wire<typeof ContactListPage>;

/** docs/campaigns.md: name 2–50; number 8–50 (stored canonical, like contacts); e-mail valid or empty. */
export const ContactListItemInput = z.object({
  name: z.string().trim().min(2).max(50),
  number: ContactNumber,
  email: ContactEmail.default(''),
  contactListId: Id,
});
export type ContactListItemInput = z.input<typeof ContactListItemInput>;

/** PUT /contact-list-items/{id}: what is sent changes; an item stays in its list. */
export const ContactListItemUpdate = ContactListItemInput.omit({ contactListId: true })
  .extend({ email: ContactEmail })
  .partial();
export type ContactListItemUpdate = z.infer<typeof ContactListItemUpdate>;

/** GET /contact-list-items: one list's items, searched by name, number or e-mail. */
export const ContactListItemQuery = ListQuery.extend({ contactListId: Id });
export type ContactListItemQuery = z.infer<typeof ContactListItemQuery>;

export const ContactListItemView = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    number: z.string(),
    email: z.string(),
    /** null: not checked yet (no connection could answer); campaigns skip only false. */
    isWhatsappValid: z.boolean().nullable(),
    companyId: z.number(),
    contactListId: z.number(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'ContactListItemView' });
export type ContactListItemView = Wire<typeof ContactListItemView>;

/** GET /contact-list-items: { contacts, hasMore }. */
export const ContactListItemPage = z
  .looseObject({
    contacts: z.array(ContactListItemView),
    hasMore: z.boolean(),
  })
  .meta({ id: 'ContactListItemPage' });
export type ContactListItemPage = Wire<typeof ContactListItemPage>;

/** POST /contact-lists/{id}/upload: an .xls/.xlsx file (multipart field `file`) of at most this size and rows. */
export const MAX_CONTACT_LIST_UPLOAD_BYTES = 5 * 1024 * 1024;
export const MAX_CONTACT_LIST_UPLOAD_ROWS = 10_000;
/** What an .xlsx upload may unpack to (all its entries together): a bound against zip bombs. */
export const MAX_CONTACT_LIST_UNPACKED_BYTES = 20 * 1024 * 1024;
export const CONTACT_LIST_UPLOAD_EXTENSIONS = ['.xls', '.xlsx'] as const;

export const ContactListUploadError = z
  .looseObject({
    /** The row's number in the sheet (the header is row 1). */
    row: z.number(),
    name: z.string(),
    number: z.string(),
    error: z.looseObject({
      code: z.string(),
      message: z.string(),
      field: z.string().optional(),
    }),
  })
  .meta({ id: 'ContactListUploadError' });
export type ContactListUploadError = Wire<typeof ContactListUploadError>;

export const ContactListUploadResult = z
  .looseObject({
    /** Items added to the list. */
    created: z.number(),
    /** Rows whose number was already in the list with another name or e-mail: those were updated. */
    updated: z.number(),
    /** Rows already in the list exactly as the sheet has them: nothing changed. */
    unchanged: z.number(),
    /** Rows refused, each with why; the other rows are kept. */
    errorBag: z.array(ContactListUploadError),
  })
  .meta({ id: 'ContactListUploadResult' });
export type ContactListUploadResult = Wire<typeof ContactListUploadResult>;

export type ContactListEvent =
  { action: 'create' | 'update'; contactList: ContactList } | { action: 'delete'; contactListId: number };

/**
 * Item events go twice: `company-{id}-contactListItem` and, for the page of one list,
 * `company-{id}-contactListItem-{listId}`. A bulk upload sends one `reload` instead of one event per row.
 */
export type ContactListItemEvent =
  | { action: 'create' | 'update'; contactListItem: ContactListItemView }
  | { action: 'delete'; contactListItemId: number; contactListId: number }
  | { action: 'reload'; contactListId: number };

/** The entity part of the per-list item event name (for companyEvent and useCompanyEvent). */
export const contactListItemsOf = (contactListId: number) =>
  // Typed as 'contactListItem': the per-list event carries the same payloads (ServerEvents).
  `contactListItem-${contactListId}` as 'contactListItem';
