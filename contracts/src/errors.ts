import { z } from 'zod';

/** Error codes the server answers with ({ error: code, message }). The web client translates each one. */
export const ERROR_CODES = [
  'ERR_INTERNAL_SERVER_ERROR',
  'ERR_VALIDATION',
  'ERR_NOT_FOUND',
  'ERR_RATE_LIMITED',
  'ERR_NO_OTHER_WHATSAPP',
  'ERR_NO_DEF_WAPP_FOUND',
  'ERR_WAPP_NOT_INITIALIZED',
  'ERR_WAPP_CHECK_CONTACT',
  'ERR_WAPP_INVALID_CONTACT',
  'ERR_WAPP_DOWNLOAD_MEDIA',
  'ERR_INVALID_CREDENTIALS',
  'ERR_USER_DONT_EXISTS',
  'ERR_SENDING_WAPP_MSG',
  'ERR_DELETE_WAPP_MSG',
  'ERR_OTHER_OPEN_TICKET',
  'ERR_SESSION_EXPIRED',
  /** The session ended because the same user signed in elsewhere (one browser per user). */
  'ERR_SESSION_REPLACED',
  'ERR_USER_CREATION_DISABLED',
  'ERR_NO_PERMISSION',
  'ERR_DUPLICATED_CONTACT',
  'ERR_NO_SETTING_FOUND',
  'ERR_NO_CONTACT_FOUND',
  'ERR_NO_TICKET_FOUND',
  'ERR_NO_USER_FOUND',
  'ERR_NO_WAPP_FOUND',
  'ERR_NO_COMPANY_FOUND',
  'ERR_NO_PLAN_FOUND',
  'ERR_NO_HELP_FOUND',
  'ERR_CREATING_MESSAGE',
  'ERR_CREATING_TICKET',
  'ERR_FETCH_WAPP_MSG',
  'ERR_QUEUE_COLOR_ALREADY_EXISTS',
  'ERR_NO_QUEUE_FOUND',
  'ERR_NO_QUEUE_OPTION_FOUND',
  'ERR_QUEUE_OPTION_ALREADY_EXISTS',
  'ERR_QUEUE_LIMIT_REACHED',
  'ERR_WAPP_GREETING_REQUIRED',
  'ERR_EMAIL_ALREADY_EXISTS',
  'ERR_COMPANY_NAME_ALREADY_EXISTS',
  'ERR_PLAN_NAME_ALREADY_EXISTS',
  'ERR_PLAN_IN_USE',
  'ERR_USER_LIMIT_REACHED',
  'ERR_INVALID_DOCUMENT',
  'ERR_INVALID_RESET_CODE',
  'ERR_COMPANY_INACTIVE',
  'ERR_CANNOT_DELETE_SELF',
  'ERR_CANNOT_DELETE_OWN_COMPANY',
  'ERR_CANNOT_DELETE_PLATFORM_COMPANY',
  'ERR_NO_TAG_FOUND',
  'ERR_NO_SLA_POLICY_FOUND',
  'ERR_TAG_ALREADY_EXISTS',
  // campaigns (docs/product.md#states): not found, edit lock, a transition its status does not allow
  'ERR_NO_CAMPAIGN_FOUND',
  'ERR_CAMPAIGN_NOT_EDITABLE',
  'ERR_CAMPAIGN_INVALID_STATUS',
  // Cloud API campaigns (docs/campaigns.md): a cloud_api connection needs an approved template with every
  // variable mapped; a template only goes over a cloud_api connection
  'ERR_CAMPAIGN_TEMPLATE_REQUIRED',
  'ERR_CAMPAIGN_TEMPLATE_UNMAPPED',
  'ERR_CAMPAIGN_TEMPLATE_CHANNEL',
  // #34.4 a campaign on a channel that only answers (website chat, Telegram, Instagram, Messenger)
  'ERR_CAMPAIGN_CHANNEL',
  // contact lists and file lists (docs/product.md#calls)
  'ERR_NO_CONTACT_LIST_FOUND',
  'ERR_NO_CONTACT_LIST_ITEM_FOUND',
  'ERR_NO_FILE_FOUND',
  'ERR_FILE_TOO_LARGE',
  'ERR_FILE_TYPE_NOT_ALLOWED',
  // a multipart body that cannot be read (no boundary, a part cut short, not multipart at all)
  'ERR_UPLOAD_MALFORMED',
  'ERR_SPREADSHEET_UNREADABLE',
  // queue integrations (docs/product.md#calls)
  'ERR_NO_INTEGRATION_FOUND',
  'ERR_INTEGRATION_SECRET_REQUIRED',
  'ERR_DIALOGFLOW_SESSION',
  // an AI prompt's test exchange failed (docs/automation.md): the provider's status and code in `reason`
  'ERR_PROMPT_TEST',
  // a tenant-supplied URL the server will not call (private or loopback host, not http(s), query tricks)
  'ERR_URL_NOT_ALLOWED',
  // WhatsApp Cloud API (docs/cloud-api.md): free text after the customer's 24-hour window, templates
  'ERR_OUTSIDE_WINDOW',
  'ERR_OUTSIDE_HUMAN_AGENT_WINDOW',
  /** #35.2 A person may not write to a contact whose required consent is still unanswered, or refused. */
  'ERR_CONSENT_PENDING',
  'ERR_CONSENT_REFUSED',
  'ERR_NO_TEMPLATE_FOUND',
  'ERR_TEMPLATE_NOT_APPROVED',
  'ERR_TEMPLATE_VARIABLES',
  'ERR_TEMPLATE_SYNC_FAILED',
  'ERR_NO_BUSINESS_ACCOUNT',
  // the external API (docs/external-api.md): a missing, wrong or replaced connection token; an externalKey
  // whose first call is still being sent
  'ERR_INVALID_API_TOKEN',
  'ERR_EXTERNAL_KEY_IN_PROGRESS',
  // outgoing webhooks (docs/webhooks.md)
  'ERR_NO_WEBHOOK_FOUND',
  // a webhook's signed file link (docs/webhooks.md#files): altered or not ours (403), past its expiry (410)
  'ERR_MEDIA_LINK_INVALID',
  'ERR_MEDIA_LINK_EXPIRED',
  // billing (docs/product.md#states, #calls)
  'ERR_SUBSCRIPTION_EXPIRED',
  'ERR_NO_INVOICE_FOUND',
  'ERR_INVOICE_ALREADY_PAID',
  'ERR_PAYMENT_PROVIDER',
  // the platform has no payment provider key yet (503): nothing the company can retry
  'ERR_PAYMENT_NOT_CONFIGURED',
  // personal and company API tokens (docs/api.md "API tokens"): unknown or revoked, past its expiry, a call its
  // scope does not cover (or a token minting tokens), too many active tokens, no such token
  'ERR_API_TOKEN_INVALID',
  'ERR_API_TOKEN_EXPIRED',
  'ERR_API_TOKEN_SCOPE',
  'ERR_API_TOKEN_LIMIT',
  'ERR_NO_API_TOKEN_FOUND',
  // routing (docs/routing.md): skip only a ticket routing could give to someone else (open, yours, in a queue)
  'ERR_TICKET_NOT_SKIPPABLE',
  'ERR_TICKET_NOT_OPEN',
  // flows (docs/flows.md): no such flow, a graph that fails validation (issues name the node), an imported
  // file's ids that are not this company's (missing lists them to map), a flow with no published version
  'ERR_NO_FLOW_FOUND',
  'ERR_FLOW_INVALID',
  'ERR_FLOW_IMPORT_UNMAPPED',
  'ERR_FLOW_NOT_PUBLISHED',
  // #35.4 company archives (docs/migration.md): refused with `details` naming the file, table and line; nothing imported
  'ERR_ARCHIVE_TRUNCATED',
  'ERR_ARCHIVE_CORRUPT',
  'ERR_ARCHIVE_TAMPERED',
  'ERR_ARCHIVE_VERSION',
  'ERR_IMPORT_FAILED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorBody {
  error: ErrorCode;
  message: string;
  /** Present on ERR_VALIDATION: which fields failed and why. */
  fields?: { path: string; message: string }[];
}

/** The error answer as a schema (OpenAPI documents every 4xx/5xx with it). */
export const ErrorResponse = z
  .object({
    error: z.enum(ERROR_CODES),
    message: z.string(),
    fields: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'ErrorResponse', description: 'Every failure: an ERR_* code and a message.' });
