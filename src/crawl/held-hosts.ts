import type { HeldHosts } from '../schedule/page-choice.js';
import type { FrontierPage } from '../schedule/queued-page.js';
import type { PullWriter } from '../store/pull-writer.js';
import type { HostGate } from '../net/host-gate.js';
import type { HostHolds } from '../net/host-holds.js';

/**
 * Which queued pages wait for their host (schedule/page-choice.ts asks at each pick): a held origin's
 * (net/host-holds.ts), and, while another host of the site than its own backs off after a
 * failure, that host's: the site goes on with its other hosts meanwhile. Its own host it waits for
 * at the gate (its failing page, due again when the pause ends, must not come before the host's
 * other pages); with one worker alone (solo), the order must not depend on timing either.
 */
export function heldHosts(holds: HostHolds, gate: HostGate, writer: PullWriter, startUrl: (siteId: number) => string, solo: boolean): HeldHosts {
  return {
    retryAt: (page: FrontierPage) => {
      const u = new URL(page.url);
      const now = Date.now();
      const own = u.host === new URL(startUrl(page.siteId)).host;
      const backsOff = !solo && !own && gate.state(u.host).failures > 0 ? gate.waitMs(u.host) : 0;
      return holds.retryAt(u.origin, now) ?? (backsOff > 0 ? now + backsOff : null);
    },
    putOff: (page: FrontierPage, at: number) => writer.putOffOrigin(page.siteId, new URL(page.url).origin, at),
  };
}
