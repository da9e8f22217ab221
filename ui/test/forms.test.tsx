// @vitest-environment jsdom
import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { useClearAfter, useSavedMark, useTicks } from '../shared/forms.js';

afterEach(cleanup);

describe('form helpers', () => {
  it('says "saved" only while the form holds what was saved', () => {
    const { result, rerender } = renderHook(({ values }) => useSavedMark(values), { initialProps: { values: { name: 'A' } } });
    expect(result.current.saved).toBe(false);
    act(() => result.current.mark({ name: 'A' }));
    expect(result.current.saved).toBe(true);
    // Changed while (or after) the save: no longer what was saved.
    rerender({ values: { name: 'AB' } });
    expect(result.current.saved).toBe(false);
    rerender({ values: { name: 'A' } });
    expect(result.current.saved).toBe(true);
  });

  it('follows the stored set while nothing is ticked, and keeps ticks not yet saved', () => {
    const { result, rerender } = renderHook(({ stored }) => useTicks(stored), { initialProps: { stored: ['a'] } });
    expect(result.current[0]).toEqual(['a']);
    // A new array with the same ids is no change.
    rerender({ stored: ['a'] });
    rerender({ stored: ['b'] });
    expect(result.current[0]).toEqual(['b']);
    act(() => result.current[1](['b', 'c']));
    // Another writer's set while the person has ticked: the person's ticks stay.
    rerender({ stored: ['d'] });
    expect(result.current[0]).toEqual(['b', 'c']);
    // Once the person's ticks are what is stored, the next stored set replaces them again.
    rerender({ stored: ['b', 'c'] });
    rerender({ stored: ['e'] });
    expect(result.current[0]).toEqual(['e']);
  });

  it('empties a form after its call only if it still holds what was sent', () => {
    let cleared = 0;
    const clear = () => {
      cleared += 1;
    };
    const { result, rerender } = renderHook(({ values }) => useClearAfter(values), { initialProps: { values: { url: 'https://a' } } });
    const sent = { url: 'https://a' };
    result.current(sent, clear);
    expect(cleared).toBe(1);
    rerender({ values: { url: 'https://a/more' } });
    result.current(sent, clear);
    expect(cleared).toBe(1);
  });
});
