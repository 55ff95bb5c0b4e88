import type { Settings } from '../store/settings.js';
import type { Policy } from '../schedule/sites/policy.js';
import { makePolicy } from '../schedule/sites/registry.js';

/** The policy a crawl runs with, from the saved settings. */
export function policyFromSettings(s: Settings): Policy {
  return makePolicy(s.policy, {
    quantum: s.quantum,
    step: s.step,
    warmup: s.warmup,
    explore: s.explore ?? undefined,
    window: s.window,
    priorMean: s['prior-mean'],
    priorWeight: s['prior-weight'],
  });
}
