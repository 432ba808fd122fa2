import type { Db } from '../../db/client.js';
import type { AppModule } from '../app-module.js';
import { contactOwnerListeners } from './contact-owner-listener.js';

/** #30.4 Contact owners: the automatic owner on a first resolve (the rules are in contact-owner-rules.ts). */
export const contactOwnerModule = (db: Db): AppModule => ({
  name: 'contact-owners',
  listeners: (bus) => contactOwnerListeners(bus, { db }),
});
