package io.hybridcache.cassandra;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.lifecycle.Tracker;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.notifications.INotification;
import org.apache.cassandra.notifications.INotificationConsumer;
import org.apache.cassandra.notifications.SSTableAddedNotification;
import org.apache.cassandra.notifications.SSTableListChangedNotification;
import org.apache.cassandra.notifications.TruncationNotification;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Learns which table and token bounds Cassandra is about to invalidate, so that {@link HybridRowCache#keyIterator}
 * (which Cassandra 5.0 calls without bounds) need not read the flash tier.
 *
 * <p>Cassandra 5.0.9's row cache invalidations that walk {@code keyIterator()}, and what announces each one
 * on the same thread just before, from the table's {@link Tracker} (to which {@link #watch} subscribes):
 * <ul>
 *   <li>end of an incoming stream (repair, bootstrap): {@code CassandraStreamReceiver.finished} calls
 *       {@code cfs.addSSTables(readers)} (Tracker: {@link SSTableAddedNotification} without a memtable)
 *       then {@code cfs.invalidateRowCache(bounds)} with each reader's [first, last] token;
 *   <li>TRUNCATE: {@code ColumnFamilyStore$2.run} (truncateBlocking) calls {@code Tracker.notifyTruncated}
 *       ({@link TruncationNotification}), discards the sstables, then {@code invalidateCaches()} ->
 *       {@code CacheService.invalidateRowCacheForCf};
 *   <li>DROP: {@code ColumnFamilyStore.invalidate(expectMBean, dropData=true)} calls
 *       {@code Tracker.dropSSTables()} ({@link SSTableListChangedNotification}, nothing added) then
 *       {@code invalidateCaches()}.
 * </ul>
 * Each announcement records its invalidation at once ({@link InvalidationRecords}) and arms the thread
 * with an {@link Arm}: the table, the bounds (or the whole table) and the <em>anchor</em>, the Cassandra
 * frame that made the announcement (method and depth from the bottom of the stack). {@link #claim} is
 * asked by {@code keyIterator}: it hands the arm over only if the frame that calls the invalidation is
 * that same frame (same method at the same depth: the same invocation of {@code finished}, {@code run}
 * or {@code invalidate}) and the invalidation is of the armed kind; anything else (cleanup, an arm left
 * by an announcement Cassandra did not follow up, an unknown caller) gets null and the full scan.
 *
 * <p>Thread-safe: arms are thread-local; {@link #watch} subscribes each table once. Never throws into
 * Cassandra: a failure to subscribe is logged and leaves that table on the full scan.
 */
final class InvalidationHooks {
  private static final Logger LOG = LoggerFactory.getLogger(InvalidationHooks.class);
  private static final String CFS = "org.apache.cassandra.db.ColumnFamilyStore";
  private static final String TRACKER = "org.apache.cassandra.db.lifecycle.Tracker";
  private static final String CACHE_PACKAGE = "org.apache.cassandra.cache.";
  private static final String OWN_PACKAGE = "io.hybridcache.";
  private static final StackWalker WALKER = StackWalker.getInstance();

  /** A token range, inclusive, as Murmur3 tokens. */
  record Bounds(long left, long right) {}

  /**
   * An announced invalidation: {@code bounds} null for the whole table.
   *
   * @param anchor the announcing Cassandra frame, "class#method@depth-from-bottom"
   */
  record Arm(TableId table, List<Bounds> bounds, String anchor) {}

  private final InvalidationRecords records;
  private final Set<TableId> watched = ConcurrentHashMap.newKeySet();
  private final ThreadLocal<Arm> arm = new ThreadLocal<>();

  InvalidationHooks(InvalidationRecords records) {
    this.records = records;
  }

  /**
   * Subscribes to {@code table}'s Tracker once (before its first entry is stored: a table with nothing
   * cached needs no record). A table that is not in the schema is left alone.
   */
  void watch(TableId table) {
    if (watched.contains(table)) {
      return;
    }
    try {
      ColumnFamilyStore cfs = Schema.instance.getColumnFamilyStoreInstance(table);
      if (cfs != null && watched.add(table)) {
        cfs.getTracker().subscribe(new Listener(table));
      }
    } catch (RuntimeException e) {
      LOG.warn("hybridcache row cache: cannot watch table {} ({}): its invalidations scan the flash tier", table,
          e.toString());
    }
  }

  /** One table's Tracker subscriber. */
  private final class Listener implements INotificationConsumer {
    private final TableId table;

    Listener(TableId table) {
      this.table = table;
    }

    @Override
    public void handleNotification(INotification n, Object sender) {
      try {
        if (n instanceof SSTableAddedNotification added && added.memtable().isEmpty()) {
          announced(new Arm(table, bounds(added.added), anchor()));
        } else if (n instanceof TruncationNotification) {
          announced(new Arm(table, null, anchor()));
        } else if (n instanceof SSTableListChangedNotification changed && changed.removed.iterator().hasNext()
            && !changed.added.iterator().hasNext() && droppingTable()) {
          announced(new Arm(table, null, anchor()));
        }
      } catch (RuntimeException | Error e) {
        LOG.warn("hybridcache row cache: notification {} for table {} not recorded ({}): the invalidation that follows"
            + " scans the flash tier", n.getClass().getSimpleName(), table, e.toString());
        arm.remove();
      }
    }
  }

  /** Records {@code a} now (the earliest moment) and arms this thread with it. */
  private void announced(Arm a) {
    apply(a);
    arm.set(a);
  }

  /** Records {@code a}'s invalidation in {@link InvalidationRecords} (again, at the moment Cassandra runs it). */
  void apply(Arm a) {
    if (a.bounds() == null) {
      records.invalidateTable(a.table());
    } else {
      for (Bounds b : a.bounds()) {
        records.invalidateRange(a.table(), b.left(), b.right());
      }
    }
  }

  /** [first, last] of each sstable; null (the whole table) unless the tokens are Murmur3's. */
  private static List<Bounds> bounds(Iterable<SSTableReader> added) {
    List<Bounds> out = new java.util.ArrayList<>();
    for (SSTableReader r : added) {
      Token first = r.getFirst().getToken();
      Token last = r.getLast().getToken();
      if (!(first instanceof Murmur3Partitioner.LongToken f) || !(last instanceof Murmur3Partitioner.LongToken l)) {
        return null;
      }
      out.add(new Bounds(f.token, l.token));
    }
    return out;
  }

  /** True inside {@code ColumnFamilyStore.invalidate} (DROP), as opposed to a compaction that wrote nothing. */
  private static boolean droppingTable() {
    return WALKER.walk(s -> s.anyMatch(f -> f.getClassName().equals(CFS) && f.getMethodName().equals("invalidate")));
  }

  /**
   * The frame that made the announcement: below this class's own frames, the first outside the Tracker
   * and {@code ColumnFamilyStore.addSSTable(s)}.
   */
  private static String anchor() {
    List<StackWalker.StackFrame> frames = WALKER.walk(s -> s.collect(Collectors.toList()));
    int i = 0;
    while (i < frames.size() && frames.get(i).getClassName().startsWith(OWN_PACKAGE)) {
      i++;
    }
    for (; i < frames.size(); i++) {
      StackWalker.StackFrame f = frames.get(i);
      String c = f.getClassName();
      if (c.startsWith(TRACKER) || (c.equals(CFS) && f.getMethodName().startsWith("addSSTable"))) {
        continue;
      }
      return c + "#" + f.getMethodName() + "@" + (frames.size() - i);
    }
    return "";
  }

  /**
   * For {@code keyIterator()}: the arm of this thread if it announced the invalidation now calling (see the
   * class comment), else null. The arm is used up either way.
   */
  Arm claim() {
    Arm a = arm.get();
    arm.remove();
    if (a == null) {
      return null;
    }
    List<StackWalker.StackFrame> frames = WALKER.walk(s -> s.collect(Collectors.toList()));
    int i = firstCassandraCaller(frames);
    if (i < 0) {
      return null;
    }
    StackWalker.StackFrame f = frames.get(i);
    boolean wholeTable = f.getClassName().equals("org.apache.cassandra.service.CacheService")
        && f.getMethodName().equals("invalidateRowCacheForCf")
        && i + 1 < frames.size() && frames.get(i + 1).getClassName().equals(CFS)
        && frames.get(i + 1).getMethodName().equals("invalidateCaches");
    boolean bounds = f.getClassName().equals(CFS) && f.getMethodName().equals("invalidateRowCache");
    int by = wholeTable ? i + 2 : bounds ? i + 1 : -1;
    if (by < 0 || by >= frames.size() || (wholeTable && a.bounds() != null)) {
      return null;
    }
    StackWalker.StackFrame caller = frames.get(by);
    String anchor = caller.getClassName() + "#" + caller.getMethodName() + "@" + (frames.size() - by);
    return anchor.equals(a.anchor()) ? a : null;
  }

  /** Index of the first frame below this provider's and Cassandra's cache wrappers' (AutoSavingCache's Writer counts). */
  private static int firstCassandraCaller(List<StackWalker.StackFrame> frames) {
    int i = 0;
    while (i < frames.size() && frames.get(i).getClassName().startsWith(OWN_PACKAGE)) {
      i++; // this provider's own frames (keyIterator and what it called)
    }
    while (i < frames.size() && frames.get(i).getClassName().startsWith(CACHE_PACKAGE)
        && !frames.get(i).getClassName().endsWith("$Writer")) {
      i++; // InstrumentingCache / AutoSavingCache.keyIterator
    }
    return i < frames.size() ? i : -1;
  }
}
