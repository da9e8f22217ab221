export { SimulatedNetwork, type SimulatedNetworkOptions } from './simulated-network.js';
export { InMemorySimInboxStore, type SimInboxStore } from './inbox.js';
export {
  acceptanceDecision,
  postDecision,
  replyDecision,
  REPLY_KINDS,
  type AcceptanceDecision,
  type PostDecision,
  type ReplyDecision,
  type ReplyKind,
} from './behaviour.js';
export { MARKERS, FAILURE_RULES } from './markers.js';
export { simPerson, slugFromNetworkUrl, slugFromProviderId, providerIdFor, networkUrlFor, type SimPerson, type Traits } from './profiles.js';
export { SEARCH_CAPS, PAGE_LIMITS, similarity } from './search.js';
