import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';
import { onlyDigits } from './documents.js';
import { ListQuery } from './users.js';
import { CustomFieldFilter, CustomFieldValues, CustomFieldValuesInput } from './custom-fields.js';

/** docs/product.md#validation: name 2–50; number 8–50 (digits, before the 55 prefix is added); e-mail valid or empty. */
export const ContactName = z.string().trim().min(2).max(50);

/** What people type: digits with the usual punctuation ("+55 (11) 98888-7777"); the server normalises it. */
export const ContactNumber = z
  .string()
  .trim()
  .max(50)
  .regex(/^\+?[\d\s().-]*$/, 'digits only')
  .refine((v) => onlyDigits(v).length >= 8, { message: 'at least 8 digits' });

export const ContactEmail = z
  .string()
  .trim()
  .toLowerCase()
  .max(120)
  .pipe(z.union([z.literal(''), z.email()]));

export const ContactExtraInfoInput = z.object({
  name: z.string().trim().min(1).max(100),
  value: z.string().trim().max(1000).default(''),
});
export type ContactExtraInfoInput = z.infer<typeof ContactExtraInfoInput>;

export const MAX_CONTACT_EXTRA_INFO = 50;

/** A user of the contact's company with access to its tickets' queues, or null to clear it. */
export const ContactOwnerId = z.number().int().positive().max(2147483647).nullable();

export const ContactInput = z.object({
  name: ContactName,
  number: ContactNumber,
  email: ContactEmail.default(''),
  extraInfo: z.array(ContactExtraInfoInput).max(MAX_CONTACT_EXTRA_INFO).default([]),
  /** The contact's owner attendant (#30.4); null or absent: nobody's. */
  ownerId: ContactOwnerId.optional(),
  /** #32.7 Custom field values by key (checked against the company's definitions). */
  customFields: CustomFieldValuesInput.optional(),
});
export type ContactInput = z.input<typeof ContactInput>;
export type ContactInputParsed = z.infer<typeof ContactInput>;

/** PUT /contacts/:id: what is sent changes; extraInfo, when sent, replaces the list. */
export const ContactUpdate = z.object({
  name: ContactName.optional(),
  number: ContactNumber.optional(),
  email: ContactEmail.optional(),
  extraInfo: z.array(ContactExtraInfoInput).max(MAX_CONTACT_EXTRA_INFO).optional(),
  ownerId: ContactOwnerId.optional(),
  /** #32.7 The keys sent change (null or '' removes one); the others stay. */
  customFields: CustomFieldValuesInput.optional(),
});
export type ContactUpdate = z.infer<typeof ContactUpdate>;

/** Calendar day in the company's time zone. */
const Day = z.iso.date();

/** GET /contacts: search from 3 characters over name and number; date filters on createdAt. */
export const ContactListQuery = ListQuery.extend({
  date: Day.optional(),
  dateStart: Day.optional(),
  dateEnd: Day.optional(),
  /** #32.7 `{"key": value}` as JSON: contacts whose custom fields hold every pair. */
  customFields: CustomFieldFilter,
});
export type ContactListQuery = z.infer<typeof ContactListQuery>;
export const CONTACT_SEARCH_MIN_LENGTH = 3;

/** POST /contacts/upload: spreadsheet rows as read (objects keyed by column), at most this many. */
export const MAX_CONTACT_UPLOAD_ROWS = 5000;
/** Rows are checked one by one on the server, so one bad row never refuses the others. */
export const ContactUploadRows = z.array(z.unknown()).max(MAX_CONTACT_UPLOAD_ROWS);

/** Column names a spreadsheet may use (compared without case and accents). */
export const CONTACT_UPLOAD_COLUMNS = {
  name: ['name', 'nome', 'nombre'],
  number: ['number', 'numero', 'telefone', 'phone', 'celular', 'whatsapp', 'telefono'],
  email: ['email', 'e-mail', 'mail', 'correo'],
} as const;
/** The contacts import's owner column (#30.4): the owner attendant's e-mail. */
export const CONTACT_OWNER_COLUMNS = [
  'owner',
  'dono',
  'responsavel',
  'proprietario',
  'carteira',
  'propietario',
];

/** "Número" → "numero", " E-Mail " → "e-mail". */
export const columnKey = (header: string): string =>
  header
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase();

export const ContactExtraInfo = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    value: z.string(),
  })
  .meta({ id: 'ContactExtraInfo' });
export type ContactExtraInfo = Wire<typeof ContactExtraInfo>;

/** #34 Kinds of a contact's identities on channels without phone numbers (docs/channels.md "Identities"). */
export const IDENTITY_KINDS = ['telegram', 'instagram', 'messenger', 'webchat', 'email'] as const;
export type IdentityKind = (typeof IDENTITY_KINDS)[number];

export const ContactIdentity = z
  .looseObject({
    kind: z.enum(IDENTITY_KINDS),
    /** The provider's id: Telegram chat id, page-scoped id, web chat visitor id, e-mail address. */
    value: z.string(),
  })
  .meta({ id: 'ContactIdentity' });
export type ContactIdentity = Wire<typeof ContactIdentity>;

export const ContactView = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    /** Canonical digits: 55 + DDD + number for Brazil, ninth digit included on mobiles. */
    number: z.string(),
    email: z.string(),
    profilePicUrl: z.string(),
    isGroup: z.boolean(),
    /** The owner attendant (#30.4); null: nobody's. */
    ownerId: z.number().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    /** Present on single-contact answers and events. */
    extraInfo: z.array(ContactExtraInfo).optional(),
    /** #32.7 Custom field values by key. */
    customFields: CustomFieldValues.optional(),
    /** #34 Identities on channels without phone numbers; present on single-contact answers. */
    identities: z.array(ContactIdentity).optional(),
  })
  .meta({ id: 'ContactView' });
export type ContactView = Wire<typeof ContactView>;

export const ContactPage = z
  .looseObject({
    contacts: z.array(ContactView),
    hasMore: z.boolean(),
    count: z.number(),
  })
  .meta({ id: 'ContactPage' });
export type ContactPage = Wire<typeof ContactPage>;

export const ContactListItem = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    number: z.string(),
  })
  .meta({ id: 'ContactListItem' });
export type ContactListItem = Wire<typeof ContactListItem>;

export const ContactImportResult = z
  .looseObject({
    imported: z.number(),
    skipped: z.number(),
    /** True when the default connection's channel has no address book to read. */
    unsupported: z.boolean().optional(),
  })
  .meta({ id: 'ContactImportResult' });
export type ContactImportResult = Wire<typeof ContactImportResult>;

export const ContactUploadError = z
  .looseObject({
    /** 1-based position of the row in the uploaded array. */
    row: z.number(),
    contactName: z.string(),
    number: z.string(),
    error: z.looseObject({
      code: z.string(),
      message: z.string(),
      field: z.string().optional(),
    }),
  })
  .meta({ id: 'ContactUploadError' });
export type ContactUploadError = Wire<typeof ContactUploadError>;

export const ContactUploadResult = z
  .looseObject({
    newContacts: z.array(
      z.looseObject({
        contactId: z.number(),
        contactName: z.string(),
      }),
    ),
    errorBag: z.array(ContactUploadError),
  })
  .meta({ id: 'ContactUploadResult' });
export type ContactUploadResult = Wire<typeof ContactUploadResult>;

export type ContactEvent =
  { action: 'create' | 'update'; contact: ContactView } | { action: 'delete'; contactId: number };
