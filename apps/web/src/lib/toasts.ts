/**
 * Toasts: short notes after an action ("Moved to Trash"), with an optional action such as
 * Undo. A tiny store outside React, so an action started on one screen can still show its
 * toast after the user navigates.
 */
import { useSyncExternalStore } from 'react';

export interface Toast {
  id: number;
  message: string;
  /** A button next to the message, e.g. Undo. */
  action?: { label: string; run: () => void | Promise<void> };
  /** An error toast stays until closed. */
  error?: boolean;
}

/** How long a toast stays, unless the pointer or the focus is on it. */
export const TOAST_MS = 8000;
const MAX = 3;

let toasts: Toast[] = [];
let next = 1;
const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};

/** Shows a toast; returns its id. */
export function showToast(toast: Omit<Toast, 'id'>): number {
  const id = next++;
  toasts = [...toasts, { ...toast, id }].slice(-MAX);
  emit();
  return id;
}

/** Removes a toast. */
export function dismissToast(id: number): void {
  const before = toasts.length;
  toasts = toasts.filter((t) => t.id !== id);
  if (toasts.length !== before) emit();
}

/** Removes every toast (the signed-in pages are gone: their Undo belongs to that session). */
export function dismissAllToasts(): void {
  if (toasts.length === 0) return;
  toasts = [];
  emit();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The toasts on screen. */
export function useToasts(): Toast[] {
  return useSyncExternalStore(
    subscribe,
    () => toasts,
    () => toasts,
  );
}
