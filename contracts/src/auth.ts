import { z } from 'zod';
import { Timestamp, type Wire, oneOf } from './responses.js';
import { isValidDocument, onlyDigits } from './documents.js';
import { LANGUAGES, PROFILES, RECURRENCES } from './constants.js';
import { PLAN_FLAGS, type PlanFlag } from './plans.js';
import { SubscriptionState } from './billing.js';

export const Email = z.string().trim().toLowerCase().max(120).pipe(z.email());
export const UserPassword = z.string().min(5).max(50);
/** Password policy of the reset flow: 8+ characters, one uppercase, one lowercase, one digit. */
export const StrongPassword = z
  .string()
  .min(8)
  .max(100)
  .regex(/[A-Z]/, 'uppercase')
  .regex(/[a-z]/, 'lowercase')
  .regex(/\d/, 'digit');

export const LoginInput = z.object({ email: Email, password: z.string().min(1).max(200) });
export type LoginInput = z.infer<typeof LoginInput>;

export const SignupInput = z.object({
  /** The company's name (the spec's field). */
  name: z.string().trim().min(2).max(50),
  /** The new admin's own name (optional: the spec's client does not send it; the company's name is used). */
  adminName: z.string().trim().min(2).max(50).optional(),
  email: Email,
  phone: z.string().transform(onlyDigits).pipe(z.string().min(10).max(11)),
  document: z.string().max(18).transform(onlyDigits).refine(isValidDocument, 'invalid document'),
  password: UserPassword,
  planId: z.coerce.number().int().positive().optional(),
  /** The spec's name for the chosen plan (an id, or the plan with its id): taken when planId is absent. */
  plan: z
    .union([z.coerce.number().int().positive(), z.looseObject({ id: z.coerce.number().int().positive() })])
    .optional(),
  /** The spec's client also sends these; the server decides them itself and ignores what is sent. */
  recurrence: z.enum(RECURRENCES).optional(),
  dueDate: z.string().optional(),
  status: z.boolean().optional(),
  campaignsEnabled: z.boolean().optional(),
  trialPeriod: z.boolean().optional(),
});
export type SignupInput = z.infer<typeof SignupInput>;

export const ForgotPasswordParams = z.object({ email: Email });
export const ResetPasswordInput = z.object({
  email: Email,
  token: z.string().trim().min(4).max(64),
  password: StrongPassword,
});
export type ResetPasswordInput = z.infer<typeof ResetPasswordInput>;

export const LanguageParam = z.object({ lang: z.enum(LANGUAGES) });

export const CompanySummary = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    dueDate: Timestamp.nullable(),
    trialPeriod: z.boolean(),
    status: z.boolean(),
    recurrence: z.string(),
    planId: z.number(),
    plan: z.looseObject({
      id: z.number(),
      name: z.string(),
      ...(Object.fromEntries(PLAN_FLAGS.map((f) => [f, z.boolean()])) as Record<PlanFlag, z.ZodBoolean>),
    }),
    settings: z.array(
      z.looseObject({
        key: z.string(),
        value: z.string(),
      }),
    ),
    /** Why the app is blocked, if it is (docs/product.md#states); the server refuses writes with 402 then. */
    subscription: SubscriptionState.optional(),
  })
  .meta({ id: 'CompanySummary' });
export type CompanySummary = Wire<typeof CompanySummary>;

export const AuthUser = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    email: z.string(),
    profile: oneOf(PROFILES),
    super: z.boolean(),
    companyId: z.number(),
    allTicket: oneOf(['enabled', 'desabled']),
    showQueuelessTickets: z.boolean(),
    language: z.string(),
    whatsappId: z.number().nullable(),
    queues: z.array(
      z.looseObject({
        id: z.number(),
        name: z.string(),
        color: z.string(),
      }),
    ),
    company: CompanySummary,
  })
  .meta({ id: 'AuthUser' });
export type AuthUser = Wire<typeof AuthUser>;

export const AuthAnswer = z
  .looseObject({
    token: z.string(),
    user: AuthUser,
  })
  .meta({ id: 'AuthAnswer' });
export type AuthAnswer = Wire<typeof AuthAnswer>;
