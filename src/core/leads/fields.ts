import { z } from 'zod';
import { PROFILE_URL_HINT } from './url.js';

/** The optional fields an add accepts, with their maximum lengths (spec, POST .../leads). */
export const LEAD_FIELD_MAX = {
  fullName: 120,
  firstName: 120,
  lastName: 120,
  jobTitle: 200,
  companyName: 200,
  email: 254,
  location: 200,
  headline: 500,
  personalization: 2000,
} as const;

type FieldName = keyof typeof LEAD_FIELD_MAX;

/** null is taken as "not given": model clients often send it for empty optional fields. */
const text = (name: FieldName, description: string) => z.string().max(LEAD_FIELD_MAX[name]).nullable().optional().describe(description);

/** Every field is described: a model fills in only what it can tell apart. */
export const LeadFields = {
  fullName: text('fullName', 'Full name.'),
  firstName: text('firstName', 'First name.'),
  lastName: text('lastName', 'Last name.'),
  jobTitle: text('jobTitle', 'Current job title.'),
  companyName: text('companyName', 'Current employer.'),
  email: text('email', 'Email address.'),
  location: text('location', 'Where the person is, e.g. a city.'),
  headline: text('headline', 'Profile headline.'),
  personalization: text('personalization', 'Free text the agent may use to personalise messages.'),
};

export type LeadFieldValues = { [K in FieldName]?: string | null | undefined };

export const NETWORK_URL_DESCRIPTION = `The person's profile: ${PROFILE_URL_HINT}.`;
