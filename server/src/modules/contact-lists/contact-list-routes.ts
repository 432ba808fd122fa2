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
  MessageAnswer,
} from '@recado/contracts';
import type { ContactListService } from './contact-list-service.js';
import { readOneFile } from '../../http/uploads.js';
import { access } from '../../http/access.js';

export const contactListRoutes =
  (lists: ContactListService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/contact-lists',
      {
        config: access.plan('useCampaigns'),
        schema: { response: { 200: ContactListPage }, querystring: ContactListsQuery },
      },
      (req) => lists.list(req.tenant, req.query),
    );
    app.get(
      '/contact-lists/list',
      { config: access.plan('useCampaigns'), schema: { response: { 200: z.array(ContactList) } } },
      (req) => lists.listAll(req.tenant),
    );
    app.get(
      '/contact-lists/:id',
      { config: access.plan('useCampaigns'), schema: { response: { 200: ContactList }, params: IdParam } },
      (req) => lists.get(req.tenant, req.params.id),
    );
    app.post(
      '/contact-lists',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { response: { 201: ContactList }, body: ContactListInput },
      },
      async (req, reply) => reply.status(201).send(await lists.create(req.tenant, req.body)),
    );
    app.put(
      '/contact-lists/:id',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { response: { 200: ContactList }, params: IdParam, body: ContactListInput },
      },
      (req) => lists.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/contact-lists/:id',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { response: { 200: MessageAnswer }, params: IdParam },
      },
      (req) => lists.remove(req.tenant, req.params.id),
    );
    // Multipart: one .xls/.xlsx file (field `file`).
    app.post(
      '/contact-lists/:id/upload',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { response: { 200: ContactListUploadResult }, params: IdParam },
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

    app.get(
      '/contact-list-items',
      {
        config: access.plan('useCampaigns'),
        schema: { response: { 200: ContactListItemPage }, querystring: ContactListItemQuery },
      },
      (req) => lists.listItems(req.tenant, req.query),
    );
    app.get(
      '/contact-list-items/:id',
      {
        config: access.plan('useCampaigns'),
        schema: { response: { 200: ContactListItemView }, params: IdParam },
      },
      (req) => lists.getItem(req.tenant, req.params.id),
    );
    app.post(
      '/contact-list-items',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { response: { 201: ContactListItemView }, body: ContactListItemInput },
      },
      async (req, reply) => reply.status(201).send(await lists.createItem(req.tenant, req.body)),
    );
    app.put(
      '/contact-list-items/:id',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { response: { 200: ContactListItemView }, params: IdParam, body: ContactListItemUpdate },
      },
      (req) => lists.updateItem(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/contact-list-items/:id',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { response: { 200: MessageAnswer }, params: IdParam },
      },
      (req) => lists.removeItem(req.tenant, req.params.id),
    );
  };
