import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A small Whaticket SaaS 6.x database (its public Sequelize schema: quoted CamelCase tables and columns, the
 * ones the importer reads) in a new database on a PostgreSQL server, with two companies' data. drop() removes it.
 * `omit` leaves tables out (a source that lacks one).
 */
export async function whaticketFixture(
  serverUrl: string,
  opts: { omit?: string[] } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `whaticket_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const tables: Record<string, string> = {
    Companies: `id serial primary key, name varchar(255) not null, phone varchar(255), email varchar(255),
      status boolean default true, "planId" integer, "dueDate" varchar(255), recurrence varchar(255),
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    Users: `id serial primary key, name varchar(255), email varchar(255), "passwordHash" varchar(255),
      profile varchar(255) default 'admin', super boolean default false, "tokenVersion" integer default 0,
      "companyId" integer references "Companies"(id), "whatsappId" integer, online boolean default false,
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    Queues: `id serial primary key, name varchar(255) not null, color varchar(255) not null, "greetingMessage" text,
      "outOfHoursMessage" text, schedules jsonb default '[]', "orderQueue" integer, "companyId" integer references "Companies"(id),
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    Whatsapps: `id serial primary key, name varchar(255) not null, session text, qrcode text, status varchar(255),
      battery varchar(255), plugged boolean, retries integer default 0, "isDefault" boolean default false,
      "greetingMessage" text, "farewellMessage" text, "complationMessage" text, "outOfHoursMessage" text,
      "ratingMessage" text, token text, provider varchar(255), "companyId" integer references "Companies"(id),
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    Contacts: `id serial primary key, name varchar(255), number varchar(255) not null, email varchar(255) default '',
      "profilePicUrl" text, "isGroup" boolean default false, "companyId" integer references "Companies"(id),
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    Tickets: `id serial primary key, status varchar(255) default 'pending', "unreadMessages" integer, "lastMessage" text,
      "isGroup" boolean default false, "contactId" integer references "Contacts"(id), "userId" integer references "Users"(id),
      "whatsappId" integer references "Whatsapps"(id), "queueId" integer references "Queues"(id), uuid uuid,
      "companyId" integer references "Companies"(id),
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    Messages: `id varchar(255) primary key, body text, ack integer default 0, read boolean default false,
      "mediaType" varchar(255), "mediaUrl" varchar(255), "fromMe" boolean default false, "isDeleted" boolean default false,
      "quotedMsgId" varchar(255), "ticketId" integer references "Tickets"(id), "contactId" integer references "Contacts"(id),
      "companyId" integer references "Companies"(id),
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    Tags: `id serial primary key, name varchar(255), color varchar(255), kanban integer default 0,
      "companyId" integer references "Companies"(id),
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    TicketTags: `"ticketId" integer references "Tickets"(id), "tagId" integer references "Tags"(id),
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now(),
      primary key ("ticketId", "tagId")`,
    QuickMessages: `id serial primary key, shortcode varchar(255), message text, "mediaPath" text, "mediaName" text,
      geral boolean default false, "userId" integer, "companyId" integer references "Companies"(id),
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    Schedules: `id serial primary key, body text, "sendAt" timestamptz, "sentAt" timestamptz, "contactId" integer,
      "ticketId" integer, "userId" integer, status varchar(255), "companyId" integer references "Companies"(id),
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    ContactLists: `id serial primary key, name varchar(255), "companyId" integer references "Companies"(id),
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    ContactListItems: `id serial primary key, name varchar(255), number varchar(255), email varchar(255),
      "contactListId" integer references "ContactLists"(id), "isWhatsappValid" boolean, "companyId" integer,
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    Campaigns: `id serial primary key, name varchar(255), status varchar(255), confirmation boolean default false,
      "scheduledAt" timestamptz, "completedAt" timestamptz, message1 text, message2 text, message3 text, message4 text,
      message5 text, "confirmationMessage1" text, "confirmationMessage2" text, "confirmationMessage3" text,
      "confirmationMessage4" text, "confirmationMessage5" text, "mediaPath" text, "mediaName" text,
      "companyId" integer references "Companies"(id), "contactListId" integer, "whatsappId" integer, "tagId" integer,
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
    Settings: `id serial primary key, key varchar(255), value text, "companyId" integer references "Companies"(id),
      "createdAt" timestamptz not null default now(), "updatedAt" timestamptz not null default now()`,
  };
  for (const [table, cols] of Object.entries(tables))
    if (!opts.omit?.includes(table))
      await c.query(
        `create table "${table}" (${(opts.omit ?? []).reduce((s, o) => s.replaceAll(`references "${o}"(id)`, ''), cols)})`,
      );
  // Rows of an omitted table are left out with it.
  const q = async (text: string) => {
    const table = /insert into "(\w+)"/.exec(text)?.[1];
    if (!table || !opts.omit?.includes(table)) await c.query(text);
  };
  await q(`insert into "Companies" (id, name, email, phone) values (1, 'Loja Um', 'um@loja.test', '5511900000001'),
    (2, 'Loja Dois', 'dois@loja.test', '5511900000002')`);
  await q(`insert into "Queues" (id, name, color, "greetingMessage", "companyId") values
    (1, 'Vendas', '#FF0000', 'Bem-vindo às vendas', 1), (2, 'Suporte', '#00FF00', '', 1), (3, 'Outra', '#0000FF', '', 2)`);
  await q(`insert into "Whatsapps" (id, name, status, "isDefault", "greetingMessage", "farewellMessage", "companyId") values
    (1, 'Principal', 'CONNECTED', true, 'Olá!', 'Tchau', 1), (2, 'Da outra', 'CONNECTED', true, '', '', 2)`);
  await q(`insert into "Users" (id, name, email, "passwordHash", profile, "companyId", "whatsappId") values
    (1, 'Ana Admin', 'ana@loja-um.test', '$2a$08$secret', 'admin', 1, 1), (2, 'Beto', 'beto@loja-um.test', '$2a$08$x', 'user', 1, null),
    (3, 'Caio', 'caio@loja-dois.test', '$2a$08$y', 'admin', 2, null)`);
  await q(`insert into "Tags" (id, name, color, kanban, "companyId") values (1, 'VIP', '#AA0000', 0, 1), (2, 'Lead', '#00AA00', 1, 1),
    (3, 'Secreta', '#000000', 0, 2)`);
  await q(`insert into "Contacts" (id, name, number, email, "companyId") values
    (1, 'Maria Silva', '5511987654321', 'maria@x.test', 1), (2, 'João', '+55 (21) 98888-7777', '', 1),
    (3, 'Cliente da Dois', '5531977776666', '', 2)`);
  await q(`insert into "Tickets" (id, status, "unreadMessages", "lastMessage", "contactId", "userId", "whatsappId", "queueId", uuid, "companyId", "createdAt", "updatedAt") values
    (1, 'open', 1, 'Obrigada!', 1, 1, 1, 1, 'a0000000-0000-4000-8000-000000000001', 1, '2025-03-01T12:00:00Z', '2025-03-01T12:05:00Z'),
    (2, 'closed', 0, 'Até mais', 2, 2, 1, 2, 'a0000000-0000-4000-8000-000000000002', 1, '2025-02-01T09:00:00Z', '2025-02-01T10:00:00Z'),
    (3, 'open', 0, 'segredo', 3, 3, 2, 3, 'a0000000-0000-4000-8000-000000000003', 2, '2025-03-02T12:00:00Z', '2025-03-02T12:00:00Z')`);
  await q(`insert into "Messages" (id, body, ack, read, "mediaType", "mediaUrl", "fromMe", "ticketId", "contactId", "companyId", "createdAt", "updatedAt") values
    ('3EB0AAA1', 'Oi, quero um orçamento', 0, true, 'chat', null, false, 1, 1, 1, '2025-03-01T12:00:00Z', '2025-03-01T12:00:00Z'),
    ('3EB0AAA2', 'Claro! Qual produto?', 3, true, 'chat', null, true, 1, 1, 1, '2025-03-01T12:01:00Z', '2025-03-01T12:01:00Z'),
    ('3EB0AAA3', 'foto.jpg', 0, true, 'image', 'foto.jpg', false, 1, 1, 1, '2025-03-01T12:02:00Z', '2025-03-01T12:02:00Z'),
    ('3EB0AAA4', 'Obrigada!', 0, false, 'chat', null, false, 1, 1, 1, '2025-03-01T12:05:00Z', '2025-03-01T12:05:00Z'),
    ('3EB0BBB1', 'Até mais', 2, true, 'chat', null, true, 2, 2, 1, '2025-02-01T10:00:00Z', '2025-02-01T10:00:00Z'),
    ('3EB0CCC1', 'segredo', 0, false, 'chat', null, false, 3, 3, 2, '2025-03-02T12:00:00Z', '2025-03-02T12:00:00Z')`);
  await q(`insert into "TicketTags" ("ticketId", "tagId") values (1, 1), (1, 2), (2, 2), (3, 3)`);
  await q(`insert into "QuickMessages" (id, shortcode, message, geral, "userId", "companyId") values
    (1, 'oi', 'Olá, como posso ajudar?', true, 1, 1), (2, 'x', 'da dois', true, 3, 2)`);
  await q(`insert into "Schedules" (id, body, "sendAt", "sentAt", "contactId", "ticketId", "userId", status, "companyId") values
    (1, 'Lembrete enviado', '2025-01-01T10:00:00Z', '2025-01-01T10:00:05Z', 1, 1, 1, 'ENVIADA', 1),
    (2, 'Lembrete futuro', '2030-01-01T10:00:00Z', null, 2, null, 1, 'PENDENTE', 1)`);
  await q(
    `insert into "ContactLists" (id, name, "companyId") values (1, 'Clientes', 1), (2, 'Lista da dois', 2)`,
  );
  await q(`insert into "ContactListItems" (id, name, number, email, "contactListId", "isWhatsappValid", "companyId") values
    (1, 'Maria', '5511987654321', '', 1, true, 1), (2, 'Pedro', '5511911112222', 'p@x.test', 1, null, 1),
    (3, 'Outro', '5531900001111', '', 2, true, 2)`);
  await q(`insert into "Campaigns" (id, name, status, message1, "contactListId", "whatsappId", "companyId", "scheduledAt", "completedAt") values
    (1, 'Black Friday', 'FINALIZADA', 'Promoção!', 1, 1, 1, '2024-11-29T10:00:00Z', '2024-11-29T11:00:00Z'),
    (2, 'Natal', 'PROGRAMADA', 'Feliz Natal', 1, 1, 1, '2030-12-24T10:00:00Z', null),
    (3, 'Da dois', 'INATIVA', 'x', 2, 2, 2, null, null)`);
  await q(`insert into "Settings" (key, value, "companyId") values ('userRating', 'enabled', 1), ('chatBotType', 'text', 1),
    ('wtV', 'disabled', 1), ('userRating', 'disabled', 2)`);
  await c.end();
  return {
    url,
    async drop() {
      const a = new pg.Client({ connectionString: serverUrl });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
