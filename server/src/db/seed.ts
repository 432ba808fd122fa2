import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq, inArray, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import {
  companies,
  plans,
  queueOptions,
  queues,
  userQueues,
  users,
  whatsappQueues,
  whatsapps,
} from './schema/index.js';
import { hashPassword, verifyPassword } from '../lib/passwords.js';

/** Plan 7 is the signup default (docs/product.md#constants): the free trial plan. */
export const SEED_PLANS = [
  {
    id: 1,
    name: 'Bronze',
    users: 3,
    connections: 1,
    queues: 3,
    value: 49,
    useCampaigns: false,
    useKanban: true,
    useOpenAi: false,
    useIntegrations: false,
    useSchedules: true,
    useInternalChat: true,
    useExternalApi: false,
  },
  {
    id: 2,
    name: 'Prata',
    users: 5,
    connections: 2,
    queues: 5,
    value: 69,
    useCampaigns: true,
    useKanban: true,
    useOpenAi: false,
    useIntegrations: false,
    useSchedules: true,
    useInternalChat: true,
    useExternalApi: true,
  },
  {
    id: 3,
    name: 'Ouro',
    users: 10,
    connections: 3,
    queues: 10,
    value: 97,
    useCampaigns: true,
    useKanban: true,
    useOpenAi: true,
    useIntegrations: true,
    useSchedules: true,
    useInternalChat: true,
    useExternalApi: true,
  },
  {
    id: 4,
    name: 'Diamante',
    users: 25,
    connections: 5,
    queues: 20,
    value: 197,
    useCampaigns: true,
    useKanban: true,
    useOpenAi: true,
    useIntegrations: true,
    useSchedules: true,
    useInternalChat: true,
    useExternalApi: true,
  },
  {
    id: 5,
    name: 'Empresarial',
    users: 100,
    connections: 20,
    queues: 50,
    value: 497,
    useCampaigns: true,
    useKanban: true,
    useOpenAi: true,
    useIntegrations: true,
    useSchedules: true,
    useInternalChat: true,
    useExternalApi: true,
  },
  {
    id: 6,
    name: 'Plataforma',
    isPublic: false,
    users: 1000,
    connections: 100,
    queues: 100,
    value: 0,
    useCampaigns: true,
    useKanban: true,
    useOpenAi: true,
    useIntegrations: true,
    useSchedules: true,
    useInternalChat: true,
    useExternalApi: true,
  },
  {
    id: 7,
    name: 'Teste grátis',
    users: 3,
    connections: 1,
    queues: 3,
    value: 0,
    useCampaigns: true,
    useKanban: true,
    useOpenAi: true,
    useIntegrations: true,
    useSchedules: true,
    useInternalChat: true,
    useExternalApi: true,
  },
];

export const DEMO = {
  company: 'Empresa Demo',
  admin: { name: 'Ana Admin', email: 'admin@demo.local', password: 'Demo@1234' },
  attendant: { name: 'Beto Atendente', email: 'atendente@demo.local', password: 'Demo@1234' },
  connection: 'Simulador',
  greeting: 'Olá! Bem-vindo à Empresa Demo. Escolha um setor:',
};

/** The demo's departments, in the order its menu offers them (migration 0035 links them for older data dirs). */
const DEMO_QUEUES = [
  {
    name: 'Suporte',
    color: '#1976D2',
    orderQueue: 1,
    greetingMessage: 'Você está no Suporte. Conte o que houve.',
  },
  {
    name: 'Vendas',
    color: '#2E7D32',
    orderQueue: 2,
    greetingMessage: 'Você está em Vendas. Em que podemos ajudar?',
  },
  {
    name: 'Financeiro',
    color: '#ED6C02',
    orderQueue: 3,
    greetingMessage: 'Você está no Financeiro. Escolha o assunto:',
  },
];
const DEMO_FINANCE_OPTIONS = [
  { option: '1', title: 'Segunda via de boleto', message: 'Certo! Um atendente já envia a sua segunda via.' },
  {
    option: '2',
    title: 'Outro assunto',
    message: 'Certo! Um atendente do Financeiro já vai falar com você.',
  },
];

export interface SeedOptions {
  superuserEmail?: string;
  superuserPassword?: string;
  demo: boolean;
  /** Where a generated super-user password is kept (embedded mode); absent in tests. */
  dataDir?: string;
  print?: (line: string) => void;
  /**
   * Production: a generated super-user password is written only to a 0600 file in dataDir (the log
   * says where, never the password), and demo users that still have the published password are locked.
   */
  production?: boolean;
}

/** Idempotent first-start data. Runs under an advisory lock so several processes can start together. */
export async function seed(db: Db, opts: SeedOptions): Promise<{ superuserPassword?: string }> {
  const print = opts.print ?? ((l: string) => console.log(l));
  if (opts.production && opts.demo)
    throw new Error('The demo company (published passwords) is never seeded in production');
  if (opts.production && !opts.superuserPassword && !opts.dataDir)
    throw new Error(
      'In production, SUPERUSER_PASSWORD must be given or DATA_DIR must hold the generated one',
    );
  const superEmail = (opts.superuserEmail ?? 'super@recado.local').toLowerCase();
  let generated: string | undefined;
  const superPassword = opts.superuserPassword ?? (generated = randomBytes(9).toString('base64url'));
  const [superHash, demoHash] = await Promise.all([
    hashPassword(superPassword),
    opts.demo ? hashPassword(DEMO.admin.password) : undefined,
  ]);

  const created = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(727001)`);
    for (const p of SEED_PLANS) await tx.insert(plans).values(p).onConflictDoNothing();
    await tx.execute(
      sql`select setval(pg_get_serial_sequence('plans', 'id'), greatest((select max(id) from plans), 1))`,
    );

    const [existingSuper] = await tx
      .select({ id: users.id })
      .from(users)
      .where(eq(users.super, true))
      .limit(1);
    let superCreated = false;
    if (!existingSuper) {
      const [platform] = await tx
        .insert(companies)
        .values({ name: 'Recado', email: superEmail, planId: 6, status: true, recurrence: 'ANUAL' })
        .onConflictDoNothing()
        .returning({ id: companies.id });
      const platformId =
        platform?.id ??
        (await tx.select({ id: companies.id }).from(companies).where(eq(companies.name, 'Recado')))[0]!.id;
      await tx.insert(users).values({
        companyId: platformId,
        name: 'Super',
        email: superEmail,
        passwordHash: superHash,
        profile: 'admin',
        super: true,
        allTicket: 'enabled',
      });
      superCreated = true;
    }
    if (opts.demo) {
      const [demo] = await tx
        .select({ id: companies.id })
        .from(companies)
        .where(eq(companies.name, DEMO.company));
      if (!demo) {
        const due = new Date(Date.now() + 365 * 86400_000).toISOString().slice(0, 10);
        const [c] = await tx
          .insert(companies)
          .values({
            name: DEMO.company,
            email: DEMO.admin.email,
            planId: 5,
            status: true,
            dueDate: due,
            recurrence: 'MENSAL',
            document: '11222333000181',
            phone: '11999990000',
          })
          .returning({ id: companies.id });
        const [admin, attendant] = await tx
          .insert(users)
          .values([
            {
              companyId: c!.id,
              name: DEMO.admin.name,
              email: DEMO.admin.email,
              passwordHash: demoHash!,
              profile: 'admin',
              allTicket: 'enabled',
            },
            {
              companyId: c!.id,
              name: DEMO.attendant.name,
              email: DEMO.attendant.email,
              passwordHash: demoHash!,
              profile: 'user',
            },
          ])
          .returning({ id: users.id });
        // Three departments offered by the simulator's menu: the attendant works in Suporte, the admin in
        // all (transfers can be tried at once); Financeiro has a small option tree under its greeting.
        const [support, sales, finance] = await tx
          .insert(queues)
          .values(DEMO_QUEUES.map((q) => ({ ...q, companyId: c!.id })))
          .returning({ id: queues.id });
        await tx.insert(queueOptions).values(
          DEMO_FINANCE_OPTIONS.map((o) => ({
            ...o,
            companyId: c!.id,
            queueId: finance!.id,
            parentId: null,
          })),
        );
        await tx.insert(userQueues).values([
          { userId: admin!.id, queueId: support!.id },
          { userId: admin!.id, queueId: sales!.id },
          { userId: admin!.id, queueId: finance!.id },
          { userId: attendant!.id, queueId: support!.id },
        ]);
        // A simulator connection: a newcomer can hold a conversation with no phone at all, and its first
        // message gets the greeting and the menu of departments (docs/bot.md).
        const [sim] = await tx
          .insert(whatsapps)
          .values({
            companyId: c!.id,
            name: DEMO.connection,
            channel: 'simulator',
            status: 'OPENING',
            isDefault: true,
            greetingMessage: DEMO.greeting,
          })
          .returning({ id: whatsapps.id });
        await tx
          .insert(whatsappQueues)
          .values([support, sales, finance].map((q) => ({ whatsappId: sim!.id, queueId: q!.id })));
      }
    }
    return superCreated;
  });

  if (opts.production) await lockPublishedDemoPasswords(db, print);

  if (created && generated && opts.production) {
    // Production logs are shipped and kept: the password goes only to a file the operator reads once.
    mkdirSync(opts.dataDir!, { recursive: true });
    const file = join(opts.dataDir!, 'superuser.txt');
    writeFileSync(file, `${superEmail}\n${generated}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    print(
      `\n  Super user created: ${superEmail}; its generated password is in ${file} (mode 0600). Read it, sign in, change it and delete the file.\n`,
    );
    return { superuserPassword: generated };
  }
  if (created && generated) {
    // Printed once, at the first start; kept beside the database so it is not lost.
    if (opts.dataDir) {
      const file = join(opts.dataDir, 'superuser.txt');
      if (!existsSync(file)) writeFileSync(file, `${superEmail}\n${generated}\n`, { mode: 0o600 });
    }
    print(
      `\n  Super user created: ${superEmail} / ${generated}\n  (shown once; also saved in ${opts.dataDir ?? 'memory'}/superuser.txt)\n`,
    );
    return { superuserPassword: generated };
  }
  return {};
}

/**
 * A database seeded before it went to production (or copied from a trial) may still hold the demo
 * users with the README's password: give them an unusable random one (they can reset it by e-mail).
 */
async function lockPublishedDemoPasswords(db: Db, print: (line: string) => void): Promise<void> {
  const demoUsers = await db
    .select({ id: users.id, email: users.email, passwordHash: users.passwordHash })
    .from(users)
    .where(inArray(users.email, [DEMO.admin.email, DEMO.attendant.email]));
  for (const u of demoUsers) {
    if (!(await verifyPassword(u.passwordHash, DEMO.admin.password))) continue;
    await db
      .update(users)
      .set({ passwordHash: await hashPassword(randomBytes(24).toString('base64url')) })
      .where(eq(users.id, u.id));
    print(`  ${u.email} had the published demo password: it was replaced by a random one.`);
  }
}
