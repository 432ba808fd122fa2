import { z } from 'zod';
import { isValidDocument, onlyDigits } from './documents.js';
import { LANGUAGES, PROFILES, RECURRENCES } from './constants.js';
import { PLAN_FLAGS } from './plans.js';

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
  name: z.string().trim().min(2).max(50),
  email: Email,
  phone: z.string().transform(onlyDigits).pipe(z.string().min(10).max(11)),
  document: z.string().max(18).transform(onlyDigits).refine(isValidDocument, 'invalid document'),
  password: UserPassword,
  planId: z.coerce.number().int().positive().optional(),
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

export interface CompanySummary {
  id: number;
  name: string;
  dueDate: string | null;
  trialPeriod: boolean;
  status: boolean;
  recurrence: string;
  planId: number;
  plan: { id: number; name: string } & Record<(typeof PLAN_FLAGS)[number], boolean>;
  settings: { key: string; value: string }[];
  /** Why the app is blocked, if it is (docs/product.md#states); the server refuses writes with 402 then. */
  subscription?: import('./billing.js').SubscriptionState;
}

export interface AuthUser {
  id: number;
  name: string;
  email: string;
  profile: (typeof PROFILES)[number];
  super: boolean;
  companyId: number;
  allTicket: 'enabled' | 'desabled';
  showQueuelessTickets: boolean;
  language: string;
  whatsappId: number | null;
  queues: { id: number; name: string; color: string }[];
  company: CompanySummary;
}

export interface AuthAnswer {
  token: string;
  user: AuthUser;
}
