import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';
import { Email, UserPassword } from './auth.js';
import { PRESENCES, PROFILES } from './constants.js';

export const UserInput = z.object({
  name: z.string().trim().min(2).max(50),
  email: Email,
  password: UserPassword,
  profile: z.enum(PROFILES).default('user'),
  allTicket: z.enum(['enabled', 'desabled']).default('desabled'),
  showQueuelessTickets: z.boolean().default(true),
  whatsappId: z.coerce.number().int().positive().nullable().optional(),
  queueIds: z.array(z.coerce.number().int().positive()).max(500).default([]),
  /** #30 The most open tickets routing gives this user (a queue's capacity overrides it); null: no limit. */
  maxTickets: z.number().int().min(0).max(1000).nullable().optional(),
  /** Super user only: create the user in another company. */
  companyId: z.coerce.number().int().positive().optional(),
  super: z.boolean().optional(),
});
export type UserInput = z.infer<typeof UserInput>;

/** Updates change only what is sent: no defaults here (a missing queueIds must not clear the queues). */
export const UserUpdate = z
  .object({
    name: z.string().trim().min(2).max(50),
    email: Email,
    password: UserPassword.or(z.literal('')),
    profile: z.enum(PROFILES),
    allTicket: z.enum(['enabled', 'desabled']),
    showQueuelessTickets: z.boolean(),
    whatsappId: z.coerce.number().int().positive().nullable(),
    queueIds: z.array(z.coerce.number().int().positive()).max(500),
    super: z.boolean(),
    maxTickets: z.number().int().min(0).max(1000).nullable(),
  })
  .partial();
export type UserUpdate = z.infer<typeof UserUpdate>;

export const ListQuery = z.object({
  searchParam: z.string().trim().toLowerCase().max(100).optional().default(''),
  pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1),
});
export type ListQuery = z.infer<typeof ListQuery>;

export const IdParam = z.object({ id: z.coerce.number().int().positive().max(2147483647) });

export const UserView = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    email: z.string(),
    profile: z.string(),
    super: z.boolean(),
    companyId: z.number(),
    allTicket: z.string(),
    showQueuelessTickets: z.boolean(),
    language: z.string(),
    whatsappId: z.number().nullable(),
    online: z.boolean(),
    maxTickets: z.number().nullable(),
    /** #30.2 'online' | 'away' | 'offline'. */
    presence: z.enum(PRESENCES),
    createdAt: Timestamp,
    queues: z.array(
      z.looseObject({
        id: z.number(),
        name: z.string(),
        color: z.string(),
      }),
    ),
  })
  .meta({ id: 'UserView' });
export type UserView = Wire<typeof UserView>;
