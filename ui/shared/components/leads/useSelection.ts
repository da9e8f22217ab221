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
  };
}

export type Selection = ReturnType<typeof useSelection>;
