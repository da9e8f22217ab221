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
const text = (name: FieldName) => z.string().max(LEAD_FIELD_MAX[name]).nullable().optional();

export const LeadFields = {
  fullName: text('fullName'),
  firstName: text('firstName'),
  lastName: text('lastName'),
  jobTitle: text('jobTitle'),
  companyName: text('companyName'),
  email: text('email'),
  location: text('location'),
  headline: text('headline'),
  personalization: text('personalization').describe('Free text the agent may use to personalise messages.'),
};

export type LeadFieldValues = { [K in FieldName]?: string | null | undefined };

export const NETWORK_URL_DESCRIPTION = `The person's profile: ${PROFILE_URL_HINT}.`;
