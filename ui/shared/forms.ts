import { type Dispatch, type SetStateAction, useCallback, useRef, useState } from 'react';

/**
 * A form's "Saved." that tells the truth: it holds while the form still shows the values that
 * were saved. A change made while the save was on its way, or after it, takes it back, so the
 * page never calls words saved that the server has not got.
 */
export function useSavedMark(values: unknown): { saved: boolean; mark: (sent: unknown) => void } {
  const [savedAs, setSavedAs] = useState<string | null>(null);
  const mark = useCallback((sent: unknown) => setSavedAs(JSON.stringify(sent)), []);
  return { saved: savedAs !== null && savedAs === JSON.stringify(values), mark };
}

/** Whether two lists of ids hold the same ids, in any order. */
export const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * Ids a person ticks, beside the stored set the page polls. A new stored set (another writer's,
 * or this form's own save) replaces the ticks only while the person has changed nothing since
 * the set before it: ticks not yet saved are theirs, and stay.
 */
export function useTicks(stored: readonly string[]): [string[], Dispatch<SetStateAction<string[]>>] {
  const [chosen, setChosen] = useState<string[]>([...stored]);
  const [base, setBase] = useState<readonly string[]>(stored);
  // Adjusted while rendering, as React advises for state that follows a prop.
  if (!sameSet(base, stored)) {
    setBase(stored);
    if (sameSet(chosen, base)) setChosen([...stored]);
  }
  return [chosen, setChosen];
}

/**
 * Empties a form after its call succeeds, unless the person changed it while the call was on
 * its way: `sent` is the form's values when it was sent, and `clear` runs only if the form still
 * holds them. Words typed meanwhile are the next call's, and stay.
 */
export function useClearAfter<T>(values: T): (sent: T, clear: () => void) => void {
  const latest = useRef(values);
  latest.current = values;
  return useCallback((sent: T, clear: () => void) => {
    if (JSON.stringify(latest.current) === JSON.stringify(sent)) clear();
  }, []);
}
