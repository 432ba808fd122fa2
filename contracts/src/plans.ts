import { z } from 'zod';
import { Timestamp } from './responses.js';

export const PLAN_FLAGS = [
  'useCampaigns',
  'useKanban',
  'useOpenAi',
  'useIntegrations',
  'useSchedules',
  'useInternalChat',
  'useExternalApi',
  'useFlows',
] as const;
export type PlanFlag = (typeof PLAN_FLAGS)[number];

export const PlanInput = z.object({
  name: z.string().trim().min(2).max(50),
  users: z.coerce.number().int().min(1).max(100000),
  connections: z.coerce.number().int().min(1).max(10000),
  queues: z.coerce.number().int().min(1).max(10000),
  value: z.coerce.number().min(0).max(1_000_000),
  useCampaigns: z.boolean().default(true),
  useKanban: z.boolean().default(true),
  useOpenAi: z.boolean().default(true),
  useIntegrations: z.boolean().default(true),
  useSchedules: z.boolean().default(true),
  useInternalChat: z.boolean().default(true),
  useExternalApi: z.boolean().default(true),
  /** Flows (docs/flows.md): the flow builder, its triggers and runs. */
  useFlows: z.boolean().default(true),
  /** Offered on the signup page. */
  isPublic: z.boolean().default(true),
});
export type PlanInput = z.infer<typeof PlanInput>;
export const PlanUpdate = z.object(
  Object.fromEntries(
    Object.entries(PlanInput.shape).map(([k, v]) => [
      k,
      (v instanceof z.ZodDefault ? v.unwrap() : v).optional(),
    ]),
  ),
) as unknown as z.ZodObject<{ [K in keyof typeof PlanInput.shape]: z.ZodOptional<z.ZodType<PlanInput[K]>> }>;

/** A plan as answered (GET /plans/all, /plans/{id}): its limits, price and feature switches. */
export const PlanView = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    users: z.number(),
    connections: z.number(),
    queues: z.number(),
    value: z.number(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Plan' });

export interface Plan extends PlanInput {
  id: number;
  createdAt: string;
  updatedAt: string;
}
