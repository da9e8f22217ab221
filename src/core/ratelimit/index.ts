export { BucketStore, type BucketState, type Rate } from './buckets.js';
export { DEFAULT_LIMITS, LimitsConfig, RATE_CLASSES, RATE_CLASS_NAMES, resolveLimits, type Limits, type NetworkOperation, type RateClass } from './config.js';
export { addressKey, createLimiter, RateLimiter, type Admission } from './limiter.js';
export {
  admitPeopleSearch,
  admitProfileLookup,
  checkAccountSpacing,
  dailyUsage,
  reserveDailyQuota,
  type DailyQuota,
  type DailyUsage,
  type QuotaAccount,
  type QuotaPermit,
} from './network.js';
export { rateLimitHeaders, RateLimitReport, wholeSeconds, type PolicyState } from './report.js';
