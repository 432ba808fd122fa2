import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  FileAnswer,
  IdParam,
  MessageAnswer,
  SCHEDULE_MEDIA_EXTENSIONS,
  SCHEDULE_MEDIA_TYPES,
  Schedule,
  ScheduleConnection,
  ScheduleConnectionQuery,
  ScheduleInput,
  ScheduleListQuery,
  ScheduleUpdate,
  hasMoreOf,
} from '@recado/contracts';
import type { ScheduleService } from './schedule-service.js';
import { extensionOf, MAX_UPLOAD_BYTES, mimeOf, readOneFile } from '../../http/uploads.js';
import { access } from '../../http/access.js';
import { ONE_FILE_BODY } from '../../http/openapi.js';
import { sendStoredFile } from '../../http/stored-file.js';

/** png, jpg, jpeg only: both the type and the name must say so. */
const acceptImage = ({ mimetype, filename }: { mimetype: string; filename: string }) =>
  (SCHEDULE_MEDIA_TYPES as readonly string[]).includes(mimetype) &&
  (SCHEDULE_MEDIA_EXTENSIONS as readonly string[]).includes(extensionOf(filename));

export const scheduleRoutes =
  (schedules: ScheduleService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/schedules',
      {
        config: access.plan('useSchedules'),
        schema: { response: { 200: hasMoreOf('schedules', Schedule) }, querystring: ScheduleListQuery },
      },
      (req) => schedules.list(req.tenant, req.query),
    );
    app.get(
      '/schedules/connection',
      {
        config: access.plan('useSchedules'),
        schema: { response: { 200: ScheduleConnection }, querystring: ScheduleConnectionQuery },
      },
      (req) => schedules.connection(req.tenant, req.query),
    );
    app.get(
      '/schedules/:id',
      { config: access.plan('useSchedules'), schema: { response: { 200: Schedule }, params: IdParam } },
      (req) => schedules.get(req.tenant, req.params.id),
    );
    app.post(
      '/schedules',
      { config: access.plan('useSchedules'), schema: { response: { 201: Schedule }, body: ScheduleInput } },
      async (req, reply) => reply.status(201).send(await schedules.create(req.tenant, req.body)),
    );
    app.put(
      '/schedules/:id',
      {
        config: access.plan('useSchedules'),
        schema: { response: { 200: Schedule }, params: IdParam, body: ScheduleUpdate },
      },
      (req) => schedules.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/schedules/:id',
      { config: access.plan('useSchedules'), schema: { response: { 200: MessageAnswer }, params: IdParam } },
      (req) => schedules.remove(req.tenant, req.params.id),
    );
    app.post(
      '/schedules/:id/media-upload',
      {
        config: access.plan('useSchedules'),
        schema: { documentedBody: ONE_FILE_BODY, response: { 200: Schedule }, params: IdParam },
      },
      async (req) => {
        await schedules.get(req.tenant, req.params.id);
        const { file } = await readOneFile(req, { maxBytes: MAX_UPLOAD_BYTES, accept: acceptImage });
        return schedules.setMedia(req.tenant, req.params.id, file);
      },
    );
    app.delete(
      '/schedules/:id/media-upload',
      { config: access.plan('useSchedules'), schema: { response: { 200: Schedule }, params: IdParam } },
      (req) => schedules.removeMedia(req.tenant, req.params.id),
    );
    app.get(
      '/schedules/:id/media',
      { config: access.plan('useSchedules'), schema: { response: { 200: FileAnswer }, params: IdParam } },
      async (req, reply) => {
        const file = await schedules.mediaFile(req.tenant, req.params.id);
        return sendStoredFile(reply, { ...file, type: mimeOf(file.filename) }, 60);
      },
    );
  };
