import { useEffect, useLayoutEffect, useRef, useState } from 'react';

export interface MenuItem {
  label: string;
  onSelect(): void;
  danger?: boolean;
}

/**
 * A menu of actions at a point of the screen (a row's ⋯ button or a right-click): arrow keys,
 * Home/End and the first letter move through it, Enter runs an item, Escape or a click
 * elsewhere closes it, and the focus goes back to what opened it.
 */
export function Menu(props: {
  label: string;
  items: MenuItem[];
  at: { x: number; y: number };
  trigger: HTMLElement | null;
  onClose(): void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState(props.at);
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  const trigger = useRef(props.trigger);

  // Inside the viewport, whatever the point.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const box = el.getBoundingClientRect();
    const x = Math.max(
      4,
      Math.min(
        props.at.x - (props.at.x + box.width > innerWidth ? box.width : 0),
        innerWidth - box.width - 4,
      ),
    );
    const y = Math.max(4, Math.min(props.at.y, innerHeight - box.height - 4));
    setPos({ x, y });
    el.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
  }, [props.at]);

  useEffect(() => {
    const close = (e: Event) => {
      if (ref.current?.contains(e.target as Node)) return;
      onClose.current();
    };
    const closeOnScroll = () => onClose.current();
    document.addEventListener('pointerdown', close, true);
    window.addEventListener('resize', closeOnScroll);
    return () => {
      document.removeEventListener('pointerdown', close, true);
      window.removeEventListener('resize', closeOnScroll);
      // Back to where the user was, if that is still on the page.
      const t = trigger.current;
      if (t?.isConnected && !document.querySelector('dialog[open]')) t.focus();
    };
  }, []);

  const items = () =>
    Array.from(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);
  const move = (from: number, delta: number) => {
    const all = items();
    if (all.length === 0) return;
    all[(from + delta + all.length) % all.length]?.focus();
  };

  return (
    <div
      ref={ref}
      role="menu"
      aria-label={props.label}
      className="menu"
      style={{ left: pos.x, top: pos.y }}
      onKeyDown={(e) => {
        const all = items();
        const current = all.indexOf(document.activeElement as HTMLElement);
        if (e.key === 'ArrowDown') move(current, 1);
        else if (e.key === 'ArrowUp') move(current, -1);
        else if (e.key === 'Home') all[0]?.focus();
        else if (e.key === 'End') all.at(-1)?.focus();
        else if (e.key === 'Escape' || e.key === 'Tab') onClose.current();
        else if (e.key.length === 1 && /\S/.test(e.key)) {
          const letter = e.key.toLowerCase();
          const match = [...all.slice(current + 1), ...all.slice(0, current + 1)].find((el) =>
            el.textContent?.toLowerCase().startsWith(letter),
          );
          match?.focus();
        } else return;
        e.preventDefault();
        e.stopPropagation();
      }}
    >
      {props.items.map((item) => (
        <button
          key={item.label}
          type="button"
          role="menuitem"
          tabIndex={-1}
          className={item.danger ? 'danger' : undefined}
          onClick={() => {
            onClose.current();
            item.onSelect();
          }}
        >
          {item.label}
        </button>
      ))}
    </div>
  );
}
