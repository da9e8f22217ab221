import { describe, expect, it } from 'vitest';
import { renderMessage, renderNote, renderTemplate, unknownPlaceholders, type RenderLead } from '../../src/core/agents/render.js';

const lead = (over: Partial<RenderLead> = {}): RenderLead => ({
  firstName: 'Ada',
  lastName: 'Lovelace',
  fullName: null,
  companyName: 'Analytical Engines',
  jobTitle: 'CTO',
  location: 'London',
  headline: 'Poet of science',
  personalization: 'Loved your note on Bernoulli numbers.',
  ...over,
});

describe('the placeholder renderer', () => {
  it('fills every documented placeholder, any case, spaces inside the braces', () => {
    const text = '{{firstName}} {{LASTNAME}} / {{ fullName }} / {{companyname}} / {{ JobTitle }} / {{location}} / {{headline}} / {{personalization}}';
    expect(renderTemplate(text, lead())).toBe(
      'Ada Lovelace / Ada Lovelace / Analytical Engines / CTO / London / Poet of science / Loved your note on Bernoulli numbers.',
    );
  });

  it('uses the fallback only when the value is missing', () => {
    expect(renderTemplate('Hi {{firstName|there}}!', lead())).toBe('Hi Ada!');
    expect(renderTemplate('Hi {{ firstName | there }}!', lead({ firstName: null, fullName: null, lastName: null }))).toBe('Hi there!');
    expect(renderTemplate('At {{companyName|your company}}', lead({ companyName: '  ' }))).toBe('At your company');
  });

  it('renders a missing value as nothing and tidies the spacing', () => {
    const none = lead({ firstName: null, lastName: null, companyName: null, jobTitle: null });
    expect(renderTemplate('Hi {{firstName}}, how is {{companyName}} ?', none)).toBe('Hi, how is?');
    expect(renderTemplate('{{jobTitle}} Hello  there', none)).toBe('Hello there');
    expect(renderTemplate('Line one {{jobTitle}}\n{{jobTitle}} line two', none)).toBe('Line one\nline two');
  });

  it('takes the first name from the full name when firstName is empty', () => {
    expect(renderTemplate('Hi {{firstName}}', lead({ firstName: null, fullName: 'Grace Hopper' }))).toBe('Hi Grace');
    // Without the punctuation that parts it from the rest of the name.
    expect(renderTemplate('Hello {{firstName|there}}, hi', lead({ firstName: null, fullName: 'Carol, Jr.' }))).toBe('Hello Carol, hi');
    expect(renderTemplate('Hello {{firstName|there}}, hi', lead({ firstName: null, fullName: ',' }))).toBe('Hello there, hi');
    // Never from a last name alone: the fallback greets, not the surname.
    expect(renderTemplate('Hi {{firstName|there}}', lead({ firstName: null, fullName: null, lastName: 'Customer' }))).toBe('Hi there');
    expect(renderTemplate('{{fullName}}', lead({ firstName: null, fullName: null, lastName: 'Customer' }))).toBe('Customer');
  });

  it('finds unknown placeholders and stray braces', () => {
    expect(unknownPlaceholders('Hi {{firstName}} {{ FULLNAME | x }}')).toEqual([]);
    expect(unknownPlaceholders('Hi {{nickname}} and {{company}}')).toEqual(['{{nickname}}', '{{company}}']);
    expect(unknownPlaceholders('Hi {{firstName}')).toEqual(['{{']);
    expect(unknownPlaceholders('Hi {{}}')).toEqual(['{{}}']);
  });

  it('fits a note to 300 characters and gives null for an empty note', () => {
    expect(renderNote(`${'word '.repeat(100)}{{firstName}}`, lead())!.length).toBeLessThanOrEqual(300);
    expect(renderNote('{{jobTitle}}', lead({ jobTitle: null }))).toBeNull();
    expect(renderNote(null, lead())).toBeNull();
    expect(renderMessage('Thanks {{firstName}}!', lead())).toBe('Thanks Ada!');
  });
});
