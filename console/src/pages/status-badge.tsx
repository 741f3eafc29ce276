import type { Pet } from '../api';

export function StatusBadge({ status }: { status: Pet['status'] }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}
