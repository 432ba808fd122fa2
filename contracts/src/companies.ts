import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';
import { AuthUser, Email } from './auth.js';
import { RECURRENCES } from './constants.js';
import { onlyDigits } from './documents.js';

const DateOnly = z.string().regex(/^\d{4}-\d{2}-\d{2}/, 'date');

export const CompanyInput = z.object({
  name: z.string().trim().min(2).max(50),
  email: Email.or(z.literal('')).optional(),
  phone: z.string().max(20).transform(onlyDigits).optional(),
  document: z.string().max(18).transform(onlyDigits).optional(),
  planId: z.coerce.number().int().positive(),
  status: z.boolean().default(true),
  dueDate: DateOnly.nullable().optional(),
  recurrence: z.enum(RECURRENCES).default('MENSAL'),
  trialPeriod: z.boolean().default(false),
  billingName: z.string().max(120).optional(),
  addressZipCode: z.string().max(20).optional(),
  addressStreet: z.string().max(200).optional(),
  addressState: z.string().max(60).optional(),
  addressCity: z.string().max(100).optional(),
  addressDistrict: z.string().max(100).optional(),
  /** Optional first admin created with the company (its e-mail is the company's). */
  adminName: z.string().trim().min(2).max(50).optional(),
  adminPassword: z.string().min(5).max(50).optional(),
  /** Whaticket's name for adminPassword (the spec's client sends it): the same first admin. */
  password: z.string().min(5).max(50).optional(),
});
export type CompanyInput = z.infer<typeof CompanyInput>;
export const CompanyUpdate = CompanyInput.omit({
  adminName: true,
  adminPassword: true,
  password: true,
}).partial();
export type CompanyUpdate = z.infer<typeof CompanyUpdate>;

const Time = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'time ##:##');
export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export const DaySchedule = z.object({
  weekday: z.string().max(20),
  weekdayEn: z.enum(WEEKDAYS),
  startTime: Time.or(z.literal('')),
  endTime: Time.or(z.literal('')),
});
export const CompanySchedulesInput = z.object({ schedules: z.array(DaySchedule).length(7) });
export type DaySchedule = z.infer<typeof DaySchedule>;

/** GET /companies/listPlan/{id}: the company and its plan's limits and switches. */
export const CompanyPlan = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    plan: z.looseObject({
      users: z.number(),
      connections: z.number(),
      queues: z.number(),
      value: z.number(),
    }),
  })
  .meta({ id: 'CompanyPlan' });

export const Company = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    email: z.string(),
    phone: z.string(),
    document: z.string(),
    planId: z.number(),
    plan: z
      .looseObject({
        id: z.number(),
        name: z.string(),
      })
      .optional(),
    status: z.boolean(),
    dueDate: Timestamp.nullable(),
    recurrence: z.string(),
    trialPeriod: z.boolean(),
    billingName: z.string(),
    addressZipCode: z.string(),
    addressStreet: z.string(),
    addressState: z.string(),
    addressCity: z.string(),
    addressDistrict: z.string(),
    schedules: z.array(DaySchedule),
    createdAt: Timestamp,
  })
  .meta({ id: 'Company' });
export type Company = Wire<typeof Company>;

/**
 * POST /companies/cadastro answers the new company (the spec's answer) plus a signed-in session for its
 * admin, as a login does (the refresh cookie is set too): a new admin lands in the app, not on /login.
 */
export const SignupAnswer = Company.extend({ token: z.string(), user: AuthUser }).meta({
  id: 'SignupAnswer',
});
export type SignupAnswer = Wire<typeof SignupAnswer>;

export const HelpInput = z.object({
  title: z.string().trim().min(2).max(120),
  description: z.string().max(2000).default(''),
  /** A YouTube video code (11 characters) or id. */
  video: z
    .string()
    .trim()
    .max(64)
    .regex(/^[A-Za-z0-9_-]*$/, 'video code'),
});
export type HelpInput = z.infer<typeof HelpInput>;
export interface Help extends HelpInput {
  id: number;
}
/** A help video as answered (GET /helps). */
export const HelpView = z
  .looseObject({ id: z.number(), title: z.string(), description: z.string(), video: z.string() })
  .meta({ id: 'Help' });
