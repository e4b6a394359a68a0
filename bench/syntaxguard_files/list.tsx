import React, { useMemo, useState } from "react";

interface Item {
  id: number;
  label: string;
  done: boolean;
}

type Props = {
  items: Item[];
  onToggle: (id: number) => void;
};

export function TodoList({ items, onToggle }: Props) {
  const [filter, setFilter] = useState<"all" | "open">("all");
  const shown = useMemo(
    () => items.filter((item) => filter === "all" || !item.done),
    [items, filter],
  );

  return (
    <section className="todo">
      <header>
        <button onClick={() => setFilter(filter === "all" ? "open" : "all")}>
          {filter === "all" ? "Show open" : "Show all"}
        </button>
      </header>
      <ul>
        {shown.map((item) => (
          <li key={item.id} className={item.done ? "done" : undefined}>
            <input type="checkbox" checked={item.done} onChange={() => onToggle(item.id)} />
            {item.label}
          </li>
        ))}
      </ul>
      <footer>{`${shown.length} of ${items.length}`}</footer>
    </section>
  );
}

export const Empty = () => <p className="empty">Nothing to do.</p>;
