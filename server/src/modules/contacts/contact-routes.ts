import { Readable } from 'node:stream';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ContactImportResult,
  ContactInput,
  ContactListItem,
  ContactListQuery,
  ContactUpdate,
  ContactUploadResult,
  ContactUploadRows,
  ContactView,
  FileAnswer,
  IdParam,
  MessageAnswer,
  pageOf,
} from '@recado/contracts';
import type { ContactService } from './contact-service.js';
import { CONTACT_EXPORT_FILE_NAME } from './contact-export.js';
import { access } from '../../http/access.js';

export const contactRoutes =
  (contacts: ContactService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/contacts',
      {
        config: access.user,
        schema: { response: { 200: pageOf('contacts', ContactView) }, querystring: ContactListQuery },
      },
      (req) => contacts.list(req.tenant, req.query),
    );
    app.get(
      '/contacts/list',
      { config: access.user, schema: { response: { 200: z.array(ContactListItem) } } },
      (req) => contacts.listAll(req.tenant),
    );
    // #32.6 The list's contacts as CSV, same query and visibility; streamed a page at a time, recorded in the audit log.
    app.get(
      '/contacts/export.csv',
      { config: access.user, schema: { response: { 200: FileAnswer }, querystring: ContactListQuery } },
      async (req, reply) => {
        const lines = await contacts.exportCsv(req.tenant, req.query);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${CONTACT_EXPORT_FILE_NAME}"`)
          .send(Readable.from(lines));
      },
    );
    app.get(
      '/contacts/:id',
      { config: access.user, schema: { response: { 200: ContactView }, params: IdParam } },
      (req) => contacts.get(req.tenant, req.params.id),
    );
    app.post(
      '/contacts',
      { config: access.user, schema: { response: { 201: ContactView }, body: ContactInput } },
      async (req, reply) => reply.status(201).send(await contacts.create(req.tenant, req.body)),
    );
    app.put(
      '/contacts/:id',
      {
        config: access.user,
        schema: { response: { 200: ContactView }, params: IdParam, body: ContactUpdate },
      },
      (req) => contacts.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/contacts/:id',
      { config: access.admin, schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => contacts.remove(req.tenant, req.params.id),
    );
    app.post(
      '/contacts/import',
      { config: access.user, schema: { noBody: true, response: { 200: ContactImportResult } } },
      (req) => contacts.importAddressBook(req.tenant),
    );
    // 5,000 rows of name, number and e-mail fit easily; the array length is what the schema limits.
    app.post(
      '/contacts/upload',
      {
        config: access.user,
        schema: { response: { 200: ContactUploadResult }, body: ContactUploadRows },
        bodyLimit: 4 * 1024 * 1024,
      },
      (req) => contacts.upload(req.tenant, req.body),
    );
  };
