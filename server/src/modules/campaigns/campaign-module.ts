import type { JobDefinition } from '../../jobs/job-queue.js';
import type { AppModule } from '../app-module.js';
import type { CampaignDispatch } from './campaign-dispatch.js';
import { campaignListeners } from './campaign-listener.js';
import { campaignRoutes } from './campaign-routes.js';
import type { CampaignService } from './campaign-service.js';

/** `paused`: wraps the dispatch jobs so a blocked company's campaigns wait (billing's pausedWhileBlocked). */
export const campaignModule = (
  campaigns: CampaignService,
  dispatch: CampaignDispatch,
  paused: (jobs: JobDefinition[]) => JobDefinition[],
): AppModule => ({
  name: 'campaigns',
  routes: [campaignRoutes(campaigns)],
  listeners: (bus) => campaignListeners(bus, dispatch),
  jobs: paused(Object.values(dispatch.jobs)),
  // #31 In the pipeline's ack statement (a CTE), not a statement of its own before it.
  ackClaims: [dispatch.ackClaim],
});
