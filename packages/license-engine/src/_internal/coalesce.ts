/**
 * Group commit for small independent writes: `submit(item)` runs `flush([item])` at once when no
 * flush is running; items submitted while one runs wait and go together in the next call. Each
 * submitter's promise settles with its batch. No timer: an idle engine adds no latency.
 */
export function coalesce<T>(flush: (items: T[]) => Promise<void>): (item: T) => Promise<void> {
  let queue: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let running = false;
  const drain = async () => {
    running = true;
    while (queue.length) {
      const batch = queue;
      queue = [];
      try {
        await flush(batch.map((q) => q.item));
        for (const q of batch) q.resolve();
      } catch (error) {
        for (const q of batch) q.reject(error);
      }
    }
    running = false;
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!running) void drain();
    });
}
