import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ContactConsent,
  ContactEraseInput,
  ContactEraseResult,
  FileAnswer,
  IdParam,
  OptedOutContacts,
  PrivacySettings,
  PrivacySettingsInput,
  RetentionPreview,
  RetentionRunResult,
} from '@recado/contracts';
import { access } from '../../http/access.js';
import type { PrivacyService } from './privacy-service.js';

/** #35 Privacy routes (docs/privacy.md): parse, authorise, call. */
export const privacyRoutes =
  (privacy: PrivacyService): FastifyPluginAsyncZod =>
  async (app) => {
    // A data subject request: everything about one contact as a ZIP, streamed (recorded in the audit log).
    app.get(
      '/contacts/:id/export',
      { config: access.admin, schema: { response: { 200: FileAnswer }, params: IdParam } },
      async (req, reply) => {
        const { filename, stream } = await privacy.exportContact(req.tenant, req.params.id);
        return reply
          .header('content-type', 'application/zip')
          .header('content-disposition', `attachment; filename="${filename}"`)
          .header('cache-control', 'no-store')
          .send(Readable.from(stream));
      },
    );
    app.post(
      '/contacts/:id/erase',
      {
        config: access.admin,
        schema: { response: { 200: ContactEraseResult }, params: IdParam, body: ContactEraseInput },
      },
      (req) => privacy.erase(req.tenant, req.params.id),
    );
    app.get(
      '/contacts/:id/consent',
      { config: access.user, schema: { response: { 200: ContactConsent }, params: IdParam } },
      (req) => privacy.consent(req.tenant, req.params.id),
    );
    app.get(
      '/privacy/opted-out',
      { config: access.user, schema: { response: { 200: OptedOutContacts } } },
      (req) => privacy.optedOut(req.tenant),
    );
    app.get(
      '/settings/privacy',
      { config: access.admin, schema: { response: { 200: PrivacySettings } } },
      (req) => privacy.settings(req.tenant),
    );
    app.put(
      '/settings/privacy',
      { config: access.admin, schema: { response: { 200: PrivacySettings }, body: PrivacySettingsInput } },
      (req) => privacy.updateSettings(req.tenant, req.body),
    );
    app.get(
      '/privacy/retention/preview',
      { config: access.admin, schema: { response: { 200: RetentionPreview } } },
      (req) => privacy.preview(req.tenant),
    );
    app.post(
      '/privacy/retention/run',
      { config: access.admin, schema: { noBody: true, response: { 200: RetentionRunResult } } },
      (req) => privacy.runRetention(req.tenant),
    );
  };
