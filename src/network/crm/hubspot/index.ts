export { HubSpotCrm, type HubSpotOptions } from './adapter.js';
export { canonicalProfileUrl, P as HUBSPOT_PROPERTIES, profileUrlVariants } from './mapping.js';
