import { z } from 'zod';
import { ContactEmail, ContactNumber } from './contacts.js';
import type { CompanyEntity } from './events.js';
import { ListQuery } from './users.js';

const Id = z.coerce.number().int().positive().max(2_147_483_647);

/** docs/campaigns.md: a contact list's name is required, 2 to 50 characters. */
export const ContactListInput = z.object({ name: z.string().trim().min(2).max(50) });
export type ContactListInput = z.infer<typeof ContactListInput>;

export const ContactListsQuery = ListQuery;
export type ContactListsQuery = z.infer<typeof ContactListsQuery>;

export interface ContactList {
  id: number;
  name: string;
  /** How many items the list holds. */
  contactsCount: number;
  createdAt: string;
  updatedAt: string;
}

/** GET /contact-lists: { records, hasMore }. */
export interface ContactListPage {
  records: ContactList[];
  hasMore: boolean;
}

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

export interface ContactListItemView {
  id: number;
  name: string;
  number: string;
  email: string;
  /** null: not checked yet (no connection could answer); campaigns skip only false. */
  isWhatsappValid: boolean | null;
  companyId: number;
  contactListId: number;
  createdAt: string;
  updatedAt: string;
}

/** GET /contact-list-items: { contacts, hasMore }. */
export interface ContactListItemPage {
  contacts: ContactListItemView[];
  hasMore: boolean;
}

/** POST /contact-lists/{id}/upload: an .xls/.xlsx file (multipart field `file`) of at most this size and rows. */
export const MAX_CONTACT_LIST_UPLOAD_BYTES = 5 * 1024 * 1024;
export const MAX_CONTACT_LIST_UPLOAD_ROWS = 10_000;
/** What an .xlsx upload may unpack to (all its entries together): a bound against zip bombs. */
export const MAX_CONTACT_LIST_UNPACKED_BYTES = 20 * 1024 * 1024;
export const CONTACT_LIST_UPLOAD_EXTENSIONS = ['.xls', '.xlsx'] as const;

export interface ContactListUploadError {
  /** The row's number in the sheet (the header is row 1). */
  row: number;
  name: string;
  number: string;
  error: { code: string; message: string; field?: string };
}

export interface ContactListUploadResult {
  /** Items added to the list. */
  created: number;
  /** Rows whose number was already in the list with another name or e-mail: those were updated. */
  updated: number;
  /** Rows already in the list exactly as the sheet has them: nothing changed. */
  unchanged: number;
  /** Rows refused, each with why; the other rows are kept. */
  errorBag: ContactListUploadError[];
}

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
  `contactListItem-${contactListId}` as CompanyEntity;
