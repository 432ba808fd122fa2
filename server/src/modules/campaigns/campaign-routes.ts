import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  Campaign,
  CampaignInput,
  CampaignListQuery,
  CampaignReport,
  CampaignShipping,
  CampaignShippingQuery,
  CampaignUpdate,
  IdParam,
  MessageAnswer,
  hasMoreOf,
} from '@recado/contracts';
import { readOneFile } from '../../http/uploads.js';
import type { CampaignService } from './campaign-service.js';
import { access } from '../../http/access.js';
import { ONE_FILE_BODY } from '../../http/openapi.js';

/** Campaign media: what a WhatsApp message can carry. */
export const CAMPAIGN_MEDIA_MAX_BYTES = 16 * 1024 * 1024;
const CAMPAIGN_MEDIA_MIME =
  /^(image|audio|video)\/[\w.+-]+$|^application\/(pdf|zip|[\w.+-]*(officedocument|msword|excel)[\w.+-]*)$|^text\/(plain|csv)$/;

export const campaignRoutes =
  (campaigns: CampaignService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/campaigns',
      {
        config: access.plan('useCampaigns'),
        schema: { response: { 200: hasMoreOf('records', Campaign) }, querystring: CampaignListQuery },
      },
      (req) => campaigns.list(req.tenant, req.query),
    );
    app.get(
      '/campaigns/:id',
      { config: access.plan('useCampaigns'), schema: { response: { 200: CampaignReport }, params: IdParam } },
      (req) => campaigns.get(req.tenant, req.params.id),
    );
    app.get(
      '/campaigns/:id/shippings',
      {
        config: access.plan('useCampaigns'),
        schema: {
          response: { 200: hasMoreOf('shippings', CampaignShipping) },
          params: IdParam,
          querystring: CampaignShippingQuery,
        },
      },
      (req) => campaigns.shippings(req.tenant, req.params.id, req.query),
    );
    app.post(
      '/campaigns',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { response: { 201: Campaign }, body: CampaignInput },
      },
      async (req, reply) => reply.status(201).send(await campaigns.create(req.tenant, req.body)),
    );
    app.put(
      '/campaigns/:id',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { response: { 200: Campaign }, params: IdParam, body: CampaignUpdate },
      },
      (req) => campaigns.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/campaigns/:id',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { response: { 200: MessageAnswer }, params: IdParam },
      },
      (req) => campaigns.remove(req.tenant, req.params.id),
    );
    app.post(
      '/campaigns/:id/cancel',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { noBody: true, response: { 200: Campaign }, params: IdParam },
      },
      (req) => campaigns.cancel(req.tenant, req.params.id),
    );
    app.post(
      '/campaigns/:id/restart',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { noBody: true, response: { 200: Campaign }, params: IdParam },
      },
      (req) => campaigns.restart(req.tenant, req.params.id),
    );
    app.post(
      '/campaigns/:id/media-upload',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { documentedBody: ONE_FILE_BODY, response: { 200: Campaign }, params: IdParam },
      },
      async (req) => {
        const { file } = await readOneFile(req, {
          maxBytes: CAMPAIGN_MEDIA_MAX_BYTES,
          accept: (f) => CAMPAIGN_MEDIA_MIME.test(f.mimetype),
        });
        return campaigns.uploadMedia(req.tenant, req.params.id, file);
      },
    );
    app.delete(
      '/campaigns/:id/media-upload',
      {
        config: access.plan('useCampaigns', 'admin'),
        schema: { response: { 200: Campaign }, params: IdParam },
      },
      (req) => campaigns.deleteMedia(req.tenant, req.params.id),
    );
  };
