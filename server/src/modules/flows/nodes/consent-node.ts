import { sql } from 'drizzle-orm';
import { executeRows } from '../../../db/rows.js';
import { consentAnswerOf, consentQuestionOf, recordConsent } from '../../privacy/privacy-service.js';
import { registerFlowNodeExecutor } from '../flow-executors.js';

/**
 * #35.2 consent (docs/flows.md "consent", docs/privacy.md): asks the company's consent text (or the node's own),
 * records yes/no and its time on the contact with the privacy module's own functions, and leaves by
 * `accepted` / `refused`; `invalid` after maxRetries answers that are neither; `timeout` with no answer. While
 * it waits the contact is `asked`, so people cannot reply before the answer (consent-gate.ts).
 */
/** A question asked this recently (by the bot) is the node's own: not sent again. */
const JUST_ASKED_MS = 60_000;

registerFlowNodeExecutor('consent', {
  async execute(ctx) {
    const d = ctx.node.data;
    const { db } = ctx.deps;
    const ask = async (retry: boolean) => {
      const own = retry && d.retryMessage.trim() ? d.retryMessage : d.text;
      await ctx.send(ctx.render(own.trim() ? own : await consentQuestionOf(db, ctx.companyId)));
    };
    const timer = { name: 'timeout', minutes: d.timeoutMinutes };
    switch (ctx.event.kind) {
      case 'enter': {
        // Asked already and given: not asked again.
        const [c] = await executeRows<{ consent_status: string | null; consent_at: string | Date | null }>(
          db,
          sql`select consent_status, consent_at from contacts
            where id = ${ctx.contact.id} and company_id = ${ctx.companyId}`,
        );
        if (c?.consent_status === 'granted') return { exit: 'accepted' };
        // The bot's automatic question went out moments ago (a keyword- or hand-started flow on a new
        // conversation): the customer is not asked twice; the node waits for that answer.
        const justAsked =
          c?.consent_status === 'asked' &&
          c.consent_at !== null &&
          ctx.now.getTime() - new Date(c.consent_at).getTime() < JUST_ASKED_MS;
        if (!justAsked) {
          await recordConsent(db, ctx.now, ctx.companyId, ctx.contact.id, 'asked');
          await ask(false);
        }
        return { hold: { status: 'waiting', state: { retries: 0 }, timer } };
      }
      case 'timer':
        return { exit: 'timeout' };
      case 'resume':
        return { hold: { status: 'waiting', state: { ...ctx.nodeState } } };
      case 'message': {
        const said = consentAnswerOf(ctx.event.message.body);
        if (said) {
          await recordConsent(db, ctx.now, ctx.companyId, ctx.contact.id, said);
          return { exit: said === 'granted' ? 'accepted' : 'refused', variables: { consent: said } };
        }
        const retries = Number(ctx.nodeState.retries ?? 0) + 1;
        if (retries > d.maxRetries) return { exit: 'invalid' };
        await ask(true);
        return { hold: { status: 'waiting', state: { retries } } };
      }
    }
  },
});
