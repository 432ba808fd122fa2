import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CONTACT_LIST_UPLOAD_EXTENSIONS,
  ContactList,
  ContactListInput,
  ContactListItemInput,
  ContactListItemPage,
  ContactListItemQuery,
  ContactListItemUpdate,
  ContactListItemView,
  ContactListPage,
  ContactListUploadResult,
  ContactListsQuery,
  IdParam,
  MAX_CONTACT_LIST_UPLOAD_BYTES,
} from '@recado/contracts';
import type { ContactListService } from './contact-list-service.js';
import { readOneFile } from '../../http/uploads.js';
import { access } from '../../http/access.js';
import { resourceRoutes } from '../../http/route-kit.js';
import { ONE_FILE_BODY } from '../../http/openapi.js';

export const contactListRoutes =
  (lists: ContactListService): FastifyPluginAsyncZod =>
  async (app) => {
    const read = access.plan('useCampaigns');
    const write = access.plan('useCampaigns', 'admin');
    resourceRoutes(app, {
      base: '/contact-lists',
      view: ContactList,
      read,
      write,
      list: {
        query: ContactListsQuery,
        answer: ContactListPage,
        run: (req) => lists.list(req.tenant, req.query),
      },
      all: { answer: z.array(ContactList), run: (req) => lists.listAll(req.tenant) },
      show: { run: (req) => lists.get(req.tenant, req.params.id) },
      create: { body: ContactListInput, run: (req) => lists.create(req.tenant, req.body) },
      update: { body: ContactListInput, run: (req) => lists.update(req.tenant, req.params.id, req.body) },
      remove: { run: (req) => lists.remove(req.tenant, req.params.id) },
    });
    // Multipart: one .xls/.xlsx file (field `file`).
    app.post(
      '/contact-lists/:id/upload',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: {
          documentedBody: ONE_FILE_BODY,
          response: { 200: ContactListUploadResult },
          params: IdParam,
        },
      },
      async (req) => {
        const { file } = await readOneFile(req, {
          maxBytes: MAX_CONTACT_LIST_UPLOAD_BYTES,
          // Only .xls and .xlsx files.
          accept: ({ filename }) =>
            CONTACT_LIST_UPLOAD_EXTENSIONS.some((ext) => filename.toLowerCase().endsWith(ext)),
        });
        return lists.upload(req.tenant, req.params.id, file.data);
      },
    );

    resourceRoutes(app, {
      base: '/contact-list-items',
      view: ContactListItemView,
      read,
      write,
      list: {
        query: ContactListItemQuery,
        answer: ContactListItemPage,
        run: (req) => lists.listItems(req.tenant, req.query),
      },
      show: { run: (req) => lists.getItem(req.tenant, req.params.id) },
      create: { body: ContactListItemInput, run: (req) => lists.createItem(req.tenant, req.body) },
      update: {
        body: ContactListItemUpdate,
        run: (req) => lists.updateItem(req.tenant, req.params.id, req.body),
      },
      remove: { run: (req) => lists.removeItem(req.tenant, req.params.id) },
    });
  };
