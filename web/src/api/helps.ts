import type { Help, HelpInput } from '@recado/contracts';
import { defineResource } from './resource.js';

export const helpKeys = { all: ['helps'] as const };

/**
 * The platform's help videos (super user writes, every company reads; helps-public.ts shares the cache):
 * one unpaged list, by title, from GET /helps. The server sends no event for them.
 */
export const helpResource = defineResource<Help, HelpInput>({
  spec: { path: '/helps', listField: null },
  listsKey: helpKeys.all,
  paged: false,
  compare: (a, b) => a.title.localeCompare(b.title) || a.id - b.id,
});

/** POST /helps or PUT /helps/{id} (super user); the answer goes into the list. */
export const useSaveHelp = helpResource.useSave;
