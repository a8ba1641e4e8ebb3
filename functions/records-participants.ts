import type { Config } from '@netlify/functions';
import { z } from '../src/shared/zod';
import { outbox } from '../src/server/mail-kinds';
import { transaction } from '../src/server/platform/db';
import { afterAnswer } from '../src/server/request/guard';
import { logAccess } from '../src/server/records/access-log';
import {
  checked,
  deskAnswer,
  deskFunction,
  deskRefusal,
  deskRefused,
} from '../src/server/records/endpoint';
import {
  participantHealth,
  participantView,
  searchParticipants,
} from '../src/server/records/participants';
import { reSignList, requestReSign, waiverTexts } from '../src/server/records/versions';
import {
  forgetKioskCookies,
  kioskId,
  kioskOf,
  listKiosks,
  turnOffKiosk,
  turnOnKiosk,
} from '../src/server/waiver/kiosk';

export const config: Config = {
  path: [
    '/api/records/participants',
    '/api/records/participants/:id',
    '/api/records/participants/:id/health',
    '/api/records/waiver-texts',
    '/api/records/re-sign',
    '/api/records/kiosks',
    '/api/records/kiosks/:id/off',
  ],
};

const kiosk = z.object({
  label: z
    .string('Please name the device.')
    .trim()
    .min(1, 'Please name the device, e.g. "Front desk tablet".')
    .max(80, 'Please keep the name under 80 characters.'),
});

const reSign = z.object({
  waiverId: z.uuid('Please choose a participant from the list.').optional(),
});

/**
 * Participants (everyone who signed with one address, in any case): the quick check by name,
 * e-mail or phone, one participant's status and waivers (reached through any of their waivers'
 * ids, so no address is in a URL), and their health information (logged). The waiver's texts as
 * signed, and the re-sign requests for a material new version.
 */
export default deskFunction(config, [
  {
    async GET({ url }) {
      const text = (url.searchParams.get('q') ?? '').trim().slice(0, 200);
      if (text.length < 2) {
        return deskRefused({
          status: 422,
          error: 'Please type at least two letters of a name, e-mail or phone.',
          fieldErrors: { q: 'Please type at least two letters of a name, e-mail or phone.' },
        });
      }
      return deskAnswer({ items: await searchParticipants(text) });
    },
  },
  {
    async GET({ params }) {
      const participant = await participantView(params.id);
      if (!participant) return deskRefusal(404);
      return deskAnswer({ id: participant.waiverId, participant });
    },
  },
  {
    async GET({ params, staff }) {
      const health = await participantHealth(params.id);
      if (!health) return deskRefusal(404);
      await logAccess(staff, {
        action: 'view-participant-health',
        recordKind: 'waiver',
        recordId: params.id,
      });
      return deskAnswer({ id: params.id, health });
    },
  },
  {
    async GET() {
      return deskAnswer(await waiverTexts());
    },
  },
  {
    async GET() {
      return deskAnswer({ items: await reSignList() });
    },
    async POST({ body, staff, context }) {
      const input = checked(reSign, body);
      if (!input.ok) return deskRefused(input.problem);
      const { mails, requested } = await requestReSign(staff, outbox, input.value.waiverId);
      if (mails.length > 0) await afterAnswer(context, outbox.deliverNow(mails));
      return deskAnswer({ requested });
    },
  },
  {
    async GET({ req }) {
      return deskAnswer({ items: await listKiosks(req) });
    },
    async POST({ req, body, staff }) {
      const input = checked(kiosk, body);
      if (!input.ok) return deskRefused(input.problem);
      // The desk session that asked ends with it: a kiosk is a device nobody of the studio is
      // signed in on, so the next person to hold it finds no desk behind the waiver form.
      const cookies = await transaction(async (tx) => {
        const set = await turnOnKiosk(tx, req, staff, input.value.label);
        await logAccess(staff, { action: 'kiosk-on', detail: { label: input.value.label } }, tx);
        return set;
      });
      const answer = deskAnswer({ kiosk: true, signedOut: true });
      for (const cookie of cookies) answer.headers.append('set-cookie', cookie);
      return answer;
    },
  },
  {
    async POST({ req, params, staff }) {
      const mine = await kioskOf(req);
      const wasThisDevice = mine !== undefined && kioskId(mine) === params.id;
      if (!(await turnOffKiosk(params.id))) return deskRefusal(404);
      await logAccess(staff, { action: 'kiosk-off', detail: { id: params.id } });
      const answer = deskAnswer({ id: params.id, off: true });
      if (wasThisDevice) {
        for (const cookie of forgetKioskCookies(req)) answer.headers.append('set-cookie', cookie);
      }
      return answer;
    },
  },
]);
