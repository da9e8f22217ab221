/**
 * The simulated network's vocabulary. Editing a list changes who the simulated people are,
 * and minted slugs (see the trait code in profiles.ts) store indexes into these lists, so
 * treat any edit as a breaking change for existing development data.
 */

export const FIRST_NAMES = [
  'ada',
  'alan',
  'alice',
  'amir',
  'ana',
  'anna',
  'ben',
  'carla',
  'chen',
  'chloe',
  'daniel',
  'david',
  'elena',
  'emma',
  'eva',
  'felix',
  'fatima',
  'grace',
  'hana',
  'hugo',
  'ines',
  'ivan',
  'jack',
  'james',
  'jana',
  'jonas',
  'julia',
  'kai',
  'karim',
  'laura',
  'leo',
  'lena',
  'lucas',
  'maria',
  'marta',
  'max',
  'mei',
  'nina',
  'noah',
  'olivia',
  'omar',
  'paul',
  'priya',
  'rahul',
  'sara',
  'sofia',
  'tom',
  'yuki',
  'jane',
  'john',
] as const;

export const LAST_NAMES = [
  'andersen',
  'baker',
  'bauer',
  'becker',
  'bianchi',
  'brown',
  'clarke',
  'costa',
  'dubois',
  'fischer',
  'garcia',
  'gupta',
  'hansen',
  'hoffmann',
  'ito',
  'jansen',
  'kaur',
  'khan',
  'kowalski',
  'larsen',
  'lopez',
  'martin',
  'meyer',
  'moreau',
  'murphy',
  'nakamura',
  'nguyen',
  'novak',
  'oliveira',
  'patel',
  'peters',
  'rossi',
  'santos',
  'schmidt',
  'schulz',
  'silva',
  'singh',
  'smith',
  'suzuki',
  'taylor',
  'visser',
  'wagner',
  'walker',
  'weber',
  'wilson',
  'wong',
  'young',
  'zhang',
] as const;

/** Seniority levels, lowest first. The index is the level used for lookalike similarity. */
export const SENIORITIES = ['junior', 'mid', 'senior', 'lead', 'head', 'director', 'vp', 'chief'] as const;
/** How common each level is among generated people (more individual contributors than chiefs). */
export const SENIORITY_WEIGHTS = [8, 30, 25, 12, 8, 7, 5, 5] as const;

export interface JobFunction {
  readonly ic: string;
  readonly team: string;
  readonly lead: string;
  readonly chief: string;
}

export const FUNCTIONS: readonly JobFunction[] = [
  { ic: 'Software Engineer', team: 'Engineering', lead: 'Engineering Manager', chief: 'CTO' },
  { ic: 'Product Manager', team: 'Product', lead: 'Group Product Manager', chief: 'Chief Product Officer' },
  { ic: 'Product Designer', team: 'Design', lead: 'Design Lead', chief: 'Chief Design Officer' },
  { ic: 'Data Scientist', team: 'Data', lead: 'Data Science Manager', chief: 'Chief Data Officer' },
  { ic: 'Account Executive', team: 'Sales', lead: 'Sales Manager', chief: 'Chief Revenue Officer' },
  { ic: 'Marketing Specialist', team: 'Marketing', lead: 'Marketing Manager', chief: 'CMO' },
  { ic: 'Customer Success Manager', team: 'Customer Success', lead: 'Customer Success Lead', chief: 'Chief Customer Officer' },
  { ic: 'Recruiter', team: 'Talent', lead: 'Talent Acquisition Lead', chief: 'Chief People Officer' },
  { ic: 'Financial Analyst', team: 'Finance', lead: 'Finance Manager', chief: 'CFO' },
  { ic: 'Operations Analyst', team: 'Operations', lead: 'Operations Manager', chief: 'COO' },
  { ic: 'Business Analyst', team: 'Strategy', lead: 'Strategy Manager', chief: 'CEO' },
  { ic: 'Security Engineer', team: 'Security', lead: 'Security Engineering Manager', chief: 'CISO' },
];

export function jobTitle(fn: JobFunction, seniority: number): string {
  switch (seniority) {
    case 0:
      return `Junior ${fn.ic}`;
    case 1:
      return fn.ic;
    case 2:
      return `Senior ${fn.ic}`;
    case 3:
      return fn.lead;
    case 4:
      return `Head of ${fn.team}`;
    case 5:
      return `Director of ${fn.team}`;
    case 6:
      return `VP of ${fn.team}`;
    default:
      return fn.chief;
  }
}

export interface Company {
  readonly name: string;
  readonly industry: number;
}

export const INDUSTRIES = [
  'Software',
  'Fintech',
  'Healthcare',
  'E-commerce',
  'Manufacturing',
  'Consulting',
  'Energy',
  'Logistics',
  'Media',
  'Education',
] as const;

const COMPANY_NAMES = [
  ['Northwind Labs', 'Cobalt Systems', 'Brightloop', 'Stackwise'],
  ['Ledgerly', 'Finova', 'Paystream', 'Clearvault'],
  ['Medisphere', 'CareBridge Health', 'Vitalis', 'Helix Diagnostics'],
  ['Shopwave', 'Cartwell', 'Urban Basket', 'Marketly'],
  ['Ironforge Industries', 'Precision Dynamics', 'Steelcraft', 'Axis Robotics'],
  ['Meridian Partners', 'Crestview Advisory', 'Oakridge Consulting', 'Summit Strategy Group'],
  ['Solara Energy', 'Windpeak', 'GridNova', 'Voltaic Power'],
  ['Freightline', 'Routewise', 'PortBridge Logistics', 'Swiftship'],
  ['Brightframe Media', 'Loudwire Studios', 'Inkwell Publishing', 'Pixelhaus'],
  ['Learnly', 'Campusnet', 'Brainwave Academy', 'Edutrail'],
] as const;

export const COMPANIES: readonly Company[] = COMPANY_NAMES.flatMap((names, industry) => names.map((name) => ({ name, industry })));

export interface City {
  readonly name: string;
  readonly country: string;
  readonly countryName: string;
}

const city = (name: string, country: string, countryName: string): City => ({ name, country, countryName });

export const CITIES: readonly City[] = [
  city('London', 'GB', 'United Kingdom'),
  city('Manchester', 'GB', 'United Kingdom'),
  city('Berlin', 'DE', 'Germany'),
  city('Munich', 'DE', 'Germany'),
  city('Hamburg', 'DE', 'Germany'),
  city('Paris', 'FR', 'France'),
  city('Lyon', 'FR', 'France'),
  city('Amsterdam', 'NL', 'Netherlands'),
  city('Rotterdam', 'NL', 'Netherlands'),
  city('Madrid', 'ES', 'Spain'),
  city('Barcelona', 'ES', 'Spain'),
  city('Milan', 'IT', 'Italy'),
  city('Rome', 'IT', 'Italy'),
  city('Stockholm', 'SE', 'Sweden'),
  city('Copenhagen', 'DK', 'Denmark'),
  city('Dublin', 'IE', 'Ireland'),
  city('Zurich', 'CH', 'Switzerland'),
  city('Vienna', 'AT', 'Austria'),
  city('Warsaw', 'PL', 'Poland'),
  city('Lisbon', 'PT', 'Portugal'),
  city('New York', 'US', 'United States'),
  city('San Francisco', 'US', 'United States'),
  city('Austin', 'US', 'United States'),
  city('Chicago', 'US', 'United States'),
  city('Boston', 'US', 'United States'),
  city('Toronto', 'CA', 'Canada'),
  city('Sydney', 'AU', 'Australia'),
  city('Singapore', 'SG', 'Singapore'),
  city('Bangalore', 'IN', 'India'),
  city('Sao Paulo', 'BR', 'Brazil'),
];

export const ABOUT_OPENERS = [
  'I help teams turn messy problems into shipped outcomes.',
  'Curious by default, pragmatic by necessity.',
  'I care about building things people actually use.',
  'Operator at heart, with a soft spot for good tooling.',
  'Passionate about growing teams and the people in them.',
] as const;

export const EXPERIENCE_VERBS = ['Led', 'Built', 'Scaled', 'Owned', 'Drove', 'Supported'] as const;

export const REPLIES = {
  positive: [
    'Thanks for reaching out! This sounds interesting, happy to chat. How does Thursday look?',
    'Good timing, we are looking into exactly this. Send over some details?',
    'Yes, I would like to learn more. Feel free to book a slot in my calendar.',
  ],
  question: [
    'What does pricing look like for a team our size?',
    'How is this different from the tool we use today?',
    'Do you have a case study from a company like ours?',
  ],
  negative: ['Not interested, thanks.', 'Please remove me from your list.', 'We are all set on this front, thanks.'],
} as const;
