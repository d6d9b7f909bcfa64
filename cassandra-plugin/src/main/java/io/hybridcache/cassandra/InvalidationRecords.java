package io.hybridcache.cassandra;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.apache.cassandra.schema.TableId;

/**
 * Lazy row cache invalidations: per table, a floor epoch (TRUNCATE, DROP: every entry of the table
 * stamped before it is stale) and a few token ranges with the epoch they were invalidated at (an incoming
 * stream's sstables: an entry stamped before the record whose token lies in the range is stale). Nothing
 * here touches the cache: a {@code get} asks {@link #stale} about the entry it found and treats a stale
 * one as a miss, so an invalidation costs no flash I/O and cannot be cut short by a device error.
 *
 * <p>Thread-safe. Each table's records are an immutable {@link Table} swapped in a
 * {@link ConcurrentHashMap#compute}; {@link #stale} reads one without a lock.
 *
 * <p>Epochs: one clock, {@link #now()}. An entry is stamped with the clock as it was when the data in it
 * was read (the reader's sentinel); a record takes the next value, so an entry stamped before a record is
 * older than it, and one stamped after it was read after the invalidation.
 *
 * <p>Bounded: at most {@value #MAX_RANGES} ranges per table. One more merges the two oldest into one
 * record over their hull with the newer epoch (counted in {@link #merges()}): it can only make more
 * entries stale, never fewer. A range over every token raises the floor, and a floor drops the ranges
 * it covers. Records are never dropped otherwise: the flash tier keeps an entry's bytes (and its stamp)
 * when reclaim reinserts it, so "reclaim has cycled past" does not prove an old entry is gone; tables
 * are bounded by the schema (one floor per table ever truncated or dropped). A warm start carries over
 * only the floors of tables with entries on flash ({@link #noteStored}); a cold start begins with none.
 */
final class InvalidationRecords {
  static final int MAX_RANGES = 32;

  private final AtomicLong clock;
  private final ConcurrentHashMap<TableId, Table> tables = new ConcurrentHashMap<>();
  private final LongAdder merges = new LongAdder();
  private final java.util.Set<TableId> stored = ConcurrentHashMap.newKeySet();

  /** @param start the first value of the clock: above every stamp already stored (a warm start) */
  InvalidationRecords(long start) {
    this.clock = new AtomicLong(start);
  }

  /** The current epoch: what an entry read now is stamped with. */
  long now() {
    return clock.get();
  }

  /** Every entry of {@code table} stamped before now is stale; returns the record's epoch. */
  long invalidateTable(TableId table) {
    long epoch = clock.incrementAndGet();
    tables.compute(table, (id, t) -> (t == null ? Table.EMPTY : t).withFloor(epoch));
    return epoch;
  }

  /**
   * Entries of {@code table} stamped before now whose token is in [{@code left}, {@code right}] are
   * stale; returns the record's epoch. {@code left > right} (a wrapping range) invalidates the table.
   */
  long invalidateRange(TableId table, long left, long right) {
    if (left > right || (left == Long.MIN_VALUE && right == Long.MAX_VALUE)) {
      return invalidateTable(table);
    }
    long epoch = clock.incrementAndGet();
    tables.compute(table, (id, t) -> {
      Table next = (t == null ? Table.EMPTY : t).withRange(left, right, epoch);
      while (next.ranges() > MAX_RANGES) {
        next = next.mergeOldestTwo();
        merges.increment();
      }
      return next;
    });
    return epoch;
  }

  /**
   * Whether an entry of {@code table} stamped {@code epoch} is stale. {@code token} is asked only when a
   * range newer than the entry could cover it.
   */
  boolean stale(TableId table, long epoch, LongSupplier token) {
    Table t = tables.get(table);
    if (t == null) {
      return false;
    }
    if (epoch < t.floor) {
      return true;
    }
    if (epoch >= t.newestRange) {
      return false;
    }
    long k = token.getAsLong();
    for (int i = 0; i < t.epochs.length; i++) {
      if (epoch < t.epochs[i] && t.lefts[i] <= k && k <= t.rights[i]) {
        return true;
      }
    }
    return false;
  }

  /**
   * Restores a floor kept across a clean restart ({@link WarmStartMarker}): every entry of {@code table}
   * stamped before {@code epoch} is stale. The clock is not moved (it starts above every stored stamp).
   */
  void restoreFloor(TableId table, long epoch) {
    tables.compute(table, (id, t) -> (t == null ? Table.EMPTY : t).withFloor(epoch));
  }

  /** Each table's floor (tables with ranges only are left out). */
  java.util.Map<TableId, Long> floors() {
    java.util.Map<TableId, Long> out = new java.util.HashMap<>();
    tables.forEach((id, t) -> {
      if (t.floor != Long.MIN_VALUE) {
        out.put(id, t.floor);
      }
    });
    return out;
  }

  /**
   * Notes that an entry of {@code table} is about to be stored (or was kept by a warm start): only such
   * tables need a floor at a clean close ({@link CachingChanges#floorTablesNotCachingRows}) and in the
   * {@link WarmStartMarker}. Cheap when already noted (a lock-free look-up).
   */
  void noteStored(TableId table) {
    if (!stored.contains(table)) {
      stored.add(table);
    }
  }

  /** The tables noted by {@link #noteStored} (a copy). */
  java.util.Set<TableId> storedTables() {
    return java.util.Set.copyOf(stored);
  }

  /** Whether {@code table} has a record. */
  boolean has(TableId table) {
    return tables.containsKey(table);
  }

  /** Tables with a record. */
  int tables() {
    return tables.size();
  }

  /** Range records held, over all tables (at most {@value #MAX_RANGES} per table). */
  int ranges() {
    int n = 0;
    for (Table t : tables.values()) {
      n += t.ranges();
    }
    return n;
  }

  /** Ranges merged into a wider one because a table had {@value #MAX_RANGES} already. */
  long merges() {
    return merges.sum();
  }

  /** One table's records; immutable. Ranges in the order recorded (about epoch order): merging by position is sound in any order. */
  private record Table(long floor, long[] lefts, long[] rights, long[] epochs, long newestRange) {
    static final Table EMPTY = new Table(Long.MIN_VALUE, new long[0], new long[0], new long[0], Long.MIN_VALUE);

    int ranges() {
      return epochs.length;
    }

    Table withFloor(long epoch) {
      long f = Math.max(floor, epoch);
      int keep = 0;
      for (long e : epochs) {
        keep += e > f ? 1 : 0;
      }
      long[] l = new long[keep];
      long[] r = new long[keep];
      long[] e = new long[keep];
      int j = 0;
      long newest = Long.MIN_VALUE;
      for (int i = 0; i < epochs.length; i++) {
        if (epochs[i] > f) {
          l[j] = lefts[i];
          r[j] = rights[i];
          e[j++] = epochs[i];
          newest = Math.max(newest, epochs[i]);
        }
      }
      return new Table(f, l, r, e, newest);
    }

    Table withRange(long left, long right, long epoch) {
      int n = epochs.length;
      long[] l = Arrays.copyOf(lefts, n + 1);
      long[] r = Arrays.copyOf(rights, n + 1);
      long[] e = Arrays.copyOf(epochs, n + 1);
      l[n] = left;
      r[n] = right;
      e[n] = epoch;
      return new Table(floor, l, r, e, Math.max(newestRange, epoch));
    }

    /** The two oldest ranges become one over their hull with the newer epoch (never fewer stale entries). */
    Table mergeOldestTwo() {
      long left = Math.min(lefts[0], lefts[1]);
      long right = Math.max(rights[0], rights[1]);
      long epoch = Math.max(epochs[0], epochs[1]);
      Table rest = new Table(floor, Arrays.copyOfRange(lefts, 2, lefts.length),
          Arrays.copyOfRange(rights, 2, rights.length), Arrays.copyOfRange(epochs, 2, epochs.length), newestRange);
      if (left == Long.MIN_VALUE && right == Long.MAX_VALUE) {
        return rest.withFloor(epoch);
      }
      int n = rest.epochs.length;
      long[] l = new long[n + 1];
      long[] r = new long[n + 1];
      long[] e = new long[n + 1];
      l[0] = left;
      r[0] = right;
      e[0] = epoch;
      System.arraycopy(rest.lefts, 0, l, 1, n);
      System.arraycopy(rest.rights, 0, r, 1, n);
      System.arraycopy(rest.epochs, 0, e, 1, n);
      return new Table(floor, l, r, e, newestRange);
    }
  }
}
