import type { Plan, PlanInput } from '@recado/contracts';
import { defineResource } from './resource.js';

export const planKeys = { all: ['plans'] as const, admin: () => ['plans', 'all'] as const };

/**
 * The platform's plans (super user): one unpaged list, by id, read from GET /plans/all; written through
 * /plans. The server sends no event for them.
 */
export const planResource = defineResource<Plan, PlanInput>({
  spec: { path: '/plans', listField: null },
  listPath: '/plans/all',
  listsKey: planKeys.admin(),
  paged: false,
  compare: (a, b) => a.id - b.id,
});

/** GET /plans/all (super user): every plan, by id. */
export const usePlans = (enabled = true) => planResource.useAll(enabled);
/** POST /plans or PUT /plans/{id}; the answer goes into the list. */
export const useSavePlan = planResource.useSave;
