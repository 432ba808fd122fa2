import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Announcement, AnnouncementFeed, AnnouncementPage, FileAnswer } from '@recado/contracts';
import { access } from '../../http/access.js';
import { resourceRoutes } from '../../http/route-kit.js';
import { ONE_FILE_BODY } from '../../http/openapi.js';
import {
  ANNOUNCEMENT_MEDIA_EXTENSIONS,
  AnnouncementInput,
  AnnouncementSeenInput,
  AnnouncementUpdate,
  IdParam,
  ListQuery,
} from '@recado/contracts';
import { extensionOf, MAX_UPLOAD_BYTES, mimeOf, readOneFile } from '../../http/uploads.js';
import type { AnnouncementService } from './announcement-service.js';
import { sendStoredFile } from '../../http/stored-file.js';

const IMAGE_TYPES = /^image\/(png|jpeg|jpg|pjpeg)$/;
/** docs/push.md: .png, .jpg, .jpeg only — by name and by declared type. */
const acceptImage = (f: { mimetype: string; filename: string }) =>
  (ANNOUNCEMENT_MEDIA_EXTENSIONS as readonly string[]).includes(extensionOf(f.filename)) &&
  IMAGE_TYPES.test(f.mimetype);

export const announcementRoutes =
  (announcements: AnnouncementService): FastifyPluginAsyncZod =>
  async (app) => {
    resourceRoutes(app, {
      base: '/announcements',
      view: Announcement,
      read: access.user,
      write: access.super,
      list: {
        query: ListQuery,
        answer: AnnouncementPage,
        run: (req) => announcements.list(req.tenant, req.query),
      },
      collection: (app) => {
        app.get(
          '/announcements/feed',
          { config: access.user, schema: { response: { 200: AnnouncementFeed } } },
          (req) => announcements.feed(req.tenant),
        );
        app.post(
          '/announcements/seen',
          {
            config: access.user,
            schema: { response: { 200: AnnouncementFeed }, body: AnnouncementSeenInput },
          },
          (req) => announcements.markSeen(req.tenant, req.body.ids),
        );
      },
      show: { run: (req) => announcements.get(req.tenant, req.params.id) },
      create: { body: AnnouncementInput, run: (req) => announcements.create(req.tenant, req.body) },
      update: {
        body: AnnouncementUpdate,
        run: (req) => announcements.update(req.tenant, req.params.id, req.body),
      },
      remove: { run: (req) => announcements.remove(req.tenant, req.params.id) },
    });
    app.post(
      '/announcements/:id/media-upload',
      {
        config: access.super,
        schema: { documentedBody: ONE_FILE_BODY, response: { 200: Announcement }, params: IdParam },
      },
      async (req) => {
        // Authorise before the upload is read.
        await announcements.assertWritable(req.tenant, req.params.id);
        const { file } = await readOneFile(req, { maxBytes: MAX_UPLOAD_BYTES, accept: acceptImage });
        return announcements.setMedia(req.tenant, req.params.id, file);
      },
    );
    app.delete(
      '/announcements/:id/media-upload',
      { config: access.super, schema: { response: { 200: Announcement }, params: IdParam } },
      (req) => announcements.removeMedia(req.tenant, req.params.id),
    );
    app.get(
      '/announcements/:id/media',
      { config: access.user, schema: { response: { 200: FileAnswer }, params: IdParam } },
      async (req, reply) => {
        const file = await announcements.mediaFile(req.tenant, req.params.id);
        return sendStoredFile(reply, { ...file, type: mimeOf(file.filename) }, 60);
      },
    );
  };
