import {
  CLOUD_API_RATE_LIMIT_CODES,
  templateNeeds,
  type CampaignTemplate,
  type CampaignTemplateValue,
} from '@recado/contracts';
import { messageTemplates } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import { storedTemplate } from '../message-templates/message-template-service.js';
import type { Recipient } from './campaign-message.js';

/**
 * Cloud API campaigns (docs/campaigns.md): the template a campaign sends, checked on save and filled per
 * recipient at claim time; and what a Graph error says about the send (rate limit or a failure for good).
 */

export type StoredTemplate = typeof messageTemplates.$inferSelect;

/** The template stored for the campaign's connection (of this company), or null. */
export { storedTemplate };

/** On save: the template exists, is approved, and every one of its values has a source. */
export function checkTemplateMapping(row: StoredTemplate | null, t: CampaignTemplate) {
  if (!row) throw new AppError('ERR_NO_TEMPLATE_FOUND', 404, `No template ${t.name} (${t.language})`);
  if (row.status !== 'APPROVED')
    throw new AppError('ERR_TEMPLATE_NOT_APPROVED', 400, `Template ${row.name} is ${row.status}`);
  const needs = templateNeeds(row.components);
  const missing: string[] = [];
  const mapped = (v: CampaignTemplateValue | undefined) => v && (v.source !== 'text' || v.text.trim() !== '');
  for (let i = 0; i < needs.body; i++) if (!mapped(t.variables[i])) missing.push(`body {{${i + 1}}}`);
  for (let i = 0; i < needs.header; i++)
    if (!mapped(t.headerVariables[i])) missing.push(`header {{${i + 1}}}`);
  if (needs.headerMedia && !t.headerMediaUrl) missing.push(`header ${needs.headerMedia}`);
  const extra = t.variables.length > needs.body || t.headerVariables.length > needs.header;
  if (missing.length || extra)
    throw new AppError(
      'ERR_CAMPAIGN_TEMPLATE_UNMAPPED',
      400,
      missing.length
        ? `Template ${row.name}: map ${missing.join(', ')}`
        : `Template ${row.name} takes ${needs.body} body and ${needs.header} header values`,
      { body: needs.body, header: needs.header, headerMedia: needs.headerMedia, missing },
    );
}

/** Meta refuses an empty parameter: an empty field without a fallback is sent as this. */
export const EMPTY_VALUE = '-';

function valueOf(v: CampaignTemplateValue, r: Recipient): string {
  if (v.source === 'text') return v.text.trim() || EMPTY_VALUE;
  const field =
    v.source === 'firstName'
      ? (r.name.trim().split(/\s+/)[0] ?? '')
      : v.source === 'name'
        ? r.name
        : v.source === 'number'
          ? r.number
          : r.email;
  return field.trim() || v.text.trim() || EMPTY_VALUE;
}

/** The values one recipient gets (what Channel.sendTemplate's parameters are made of). */
export function templateValuesFor(t: CampaignTemplate, r: Recipient) {
  return {
    variables: t.variables.map((v) => valueOf(v, r)),
    headerVariables: t.headerVariables.map((v) => valueOf(v, r)),
    ...(t.headerMediaUrl ? { headerMediaUrl: t.headerMediaUrl } : {}),
  };
}

/** Meta's answer to a send, read from the channel's error (graph-client sets status and graphCode). */
export function sendFailure(err: unknown): { rateLimited: boolean; code: number | null } {
  const e = err as { status?: number; graphCode?: unknown };
  const code = typeof e?.graphCode === 'number' ? e.graphCode : null;
  return {
    rateLimited: e?.status === 429 || (code !== null && CLOUD_API_RATE_LIMIT_CODES.includes(code)),
    code,
  };
}
