import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';

/** #35 Privacy (docs/privacy.md): consent, opt-out and retention per company; data subject requests. */

/** The opt-out word when the company has not chosen one. */
export const DEFAULT_OPT_OUT_WORD = 'SAIR';
/** Rows one retention transaction touches at most (several transactions when more are due). */
export const RETENTION_BATCH = 500;

/** A contact's consent: null = never asked. `refused` and `opted_out` keep them out of campaigns. */
export const CONSENT_STATUSES = ['asked', 'granted', 'refused', 'opted_out'] as const;
export const ConsentStatus = z.enum(CONSENT_STATUSES);
export type ConsentStatus = z.infer<typeof ConsentStatus>;
export const isOptedOut = (s: string | null | undefined) => s === 'refused' || s === 'opted_out';

export const PrivacySettings = z
  .looseObject({
    /** Ask for consent on a new conversation before the first human reply. */
    consentRequired: z.boolean(),
    /** The question the bot sends (a default text in the company's language when empty). */
    consentText: z.string(),
    /** A customer message that is exactly this word (any case, accents ignored) opts the contact out. */
    optOutWord: z.string(),
    /** Media older than this many days are deleted from the store; null: kept. */
    mediaRetentionDays: z.number().int().nullable(),
    /** Tickets closed more than this many months ago are anonymised; null: kept. */
    ticketRetentionMonths: z.number().int().nullable(),
  })
  .meta({ id: 'PrivacySettings' });
export type PrivacySettings = Wire<typeof PrivacySettings>;

export const PrivacySettingsInput = z
  .object({
    consentRequired: z.boolean(),
    consentText: z.string().trim().max(1000),
    optOutWord: z.string().trim().min(1).max(30).regex(/^\S+$/, 'one word'),
    mediaRetentionDays: z.number().int().min(1).max(3650).nullable(),
    ticketRetentionMonths: z.number().int().min(1).max(120).nullable(),
  })
  .partial();
export type PrivacySettingsInput = z.infer<typeof PrivacySettingsInput>;

/** What the next retention run will touch, counted now with the same statements the run uses. */
export const RetentionPreview = z
  .looseObject({
    /** Messages whose media files will be deleted (older than mediaRetentionDays). */
    media: z.number(),
    /** Closed tickets that will be anonymised (closed more than ticketRetentionMonths ago). */
    tickets: z.number(),
    /** Their messages (texts and media removed with the ticket). */
    ticketMessages: z.number(),
    mediaBefore: Timestamp.nullable(),
    ticketsClosedBefore: Timestamp.nullable(),
  })
  .meta({ id: 'RetentionPreview' });
export type RetentionPreview = Wire<typeof RetentionPreview>;

export const RetentionRunResult = z
  .looseObject({ media: z.number(), tickets: z.number(), ticketMessages: z.number() })
  .meta({ id: 'RetentionRunResult' });
export type RetentionRunResult = Wire<typeof RetentionRunResult>;

/** POST /contacts/{id}/erase: irreversible, so the body must say so. */
export const ContactEraseInput = z.object({
  confirm: z.literal(true, { error: 'confirm must be true' }),
});
export type ContactEraseInput = z.infer<typeof ContactEraseInput>;

export const ContactEraseResult = z
  .looseObject({ id: z.number(), messages: z.number(), mediaFiles: z.number(), tickets: z.number() })
  .meta({ id: 'ContactEraseResult' });
export type ContactEraseResult = Wire<typeof ContactEraseResult>;

/**
 * #35.2 Why a person may not write to the contact now: consent required and still unanswered (`pending`) or
 * refused (`refused`); null = they may.
 */
export const ConsentReplyBlock = z.enum(['pending', 'refused']).nullable();
export type ConsentReplyBlock = z.infer<typeof ConsentReplyBlock>;

export const ContactConsent = z
  .looseObject({
    contactId: z.number(),
    status: ConsentStatus.nullable(),
    at: Timestamp.nullable(),
    optedOut: z.boolean(),
    erased: z.boolean(),
    replyBlocked: ConsentReplyBlock.optional(),
  })
  .meta({ id: 'ContactConsent' });
export type ContactConsent = Wire<typeof ContactConsent>;

/** GET /privacy/opted-out: the company's contacts kept out of campaigns (refused or opted out). */
export const OptedOutContacts = z.looseObject({ ids: z.array(z.number()) }).meta({ id: 'OptedOutContacts' });
export type OptedOutContacts = Wire<typeof OptedOutContacts>;
