import { useState } from 'react';

/** Which leads are ticked; ticks survive paging, and "all" means all on the page shown. */
export function useSelection(onPage: readonly string[]) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const allOnPage = onPage.length > 0 && onPage.every((id) => selected.has(id));
  return {
    ids: [...selected],
    size: selected.size,
    has: (id: string) => selected.has(id),
    allOnPage,
    toggle: (id: string) =>
      setSelected((prev) => {
        const next = new Set(prev);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    toggleAll: () => setSelected(allOnPage ? new Set() : new Set(onPage)),
    clear: () => setSelected(new Set()),
    /** Unticks the leads an action was done on; a lead ticked while it ran stays ticked. */
    done: (ids: readonly string[]) =>
      setSelected((prev) => {
        const next = new Set(prev);
        for (const id of ids) next.delete(id);
        return next;
      }),
  };
}

export type Selection = ReturnType<typeof useSelection>;
