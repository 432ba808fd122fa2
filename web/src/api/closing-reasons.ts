import type { ClosingReason, ClosingReasonInput, ClosingReasonUpdate } from '@recado/contracts';
import { defineResource } from './resource.js';

/** The resolve dialog (pages/closing/ResolveDialog.tsx) reads the same cache entry. */
export const closingReasonKeys = { all: ['closing-reasons'] as const };

/** Server order of GET /closing-reasons: position, name (any case), then id. */
const byPosition = (a: ClosingReason, b: ClosingReason) =>
  a.position - b.position || a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id;

/**
 * Closing reasons (#32.3, docs/productivity.md "Closing reasons"): one unpaged list from
 * GET /closing-reasons; admins change them from their screen (no event).
 */
export const closingReasonResource = defineResource<ClosingReason, ClosingReasonInput | ClosingReasonUpdate>({
  spec: { path: '/closing-reasons', listField: null },
  listsKey: closingReasonKeys.all,
  paged: false,
  compare: byPosition,
});
