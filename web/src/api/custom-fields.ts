import { useQuery } from '@tanstack/react-query';
import type {
  CustomFieldEntity,
  CustomFieldInput,
  CustomFieldUpdate,
  CustomFieldView,
} from '@recado/contracts';
import { api } from './client.js';
import { defineResource } from './resource.js';

export const customFieldKeys = { all: ['custom-fields'] as const };

/** Server order of GET /custom-fields: entity, order, id. */
const byOrder = (a: CustomFieldView, b: CustomFieldView) =>
  a.entity.localeCompare(b.entity) || a.order - b.order || a.id - b.id;

/**
 * Custom field definitions (#32.7, docs/productivity.md "Custom fields"): one unpaged list from
 * GET /custom-fields; admins change them from their screen (no event).
 */
export const customFieldResource = defineResource<CustomFieldView, CustomFieldInput | CustomFieldUpdate>({
  spec: { path: '/custom-fields', listField: null },
  listsKey: customFieldKeys.all,
  paged: false,
  compare: byOrder,
});

/** The company's definitions of one entity, in display order (the forms, the filters, the ticket header). */
export function useCustomFields(entity: CustomFieldEntity, enabled = true) {
  const query = useQuery({
    queryKey: customFieldKeys.all,
    queryFn: () => api.get<CustomFieldView[]>('/custom-fields'),
    staleTime: 60_000,
    enabled,
  });
  return { ...query, fields: (query.data ?? []).filter((f) => f.entity === entity) };
}
