package io.hybridcache.cassandra;

import java.util.Set;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.TableId;
import org.apache.cassandra.schema.SchemaChangeListener;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.schema.ViewMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes the gap of writes made while a table's {@code caching} does not cache rows: Cassandra skips
 * their row cache invalidation ({@code ColumnFamilyStore.isRowCacheEnabled()} gates
 * {@code invalidateCachedPartition}), so partitions stored before would be served again once caching
 * is turned back on, within a run (as with OHC) and, with {@code start=warm}, after a restart.
 *
 * <p>Two rules, each a floor in {@link InvalidationRecords} (every entry of the table stored before it
 * is stale, a miss; no flash read):
 * <ul>
 *   <li>when a table's or view's {@code caching} starts or stops caching rows, in either direction, from
 *       {@code onPreAlterTable}/{@code onPreAlterView}: Cassandra 5.0.9 calls them
 *       ({@code Schema.mergeAndUpdateVersion} → {@code notifyPreChanges}) before the new metadata is
 *       merged, so before a write can skip an invalidation (stop) and before a read can use the row cache
 *       again (start). Either direction, because a stop may have happened where this listener did not
 *       hear it (a run without this provider, or before the last restart);
 *   <li>at a clean close ({@link #floorTablesNotCachingRows}), for every table with entries on flash
 *       (stored this run, or kept by the warm start) that does not cache rows then: the writes of this
 *       run to it were not invalidated, and the start of caching may happen in a run without this
 *       provider. The floors are kept across the restart in the {@link WarmStartMarker}.
 * </ul>
 *
 * <p>Registered in every start mode ({@code start=cold} has the same-run gap). Thread-safe (the records
 * are). Never throws a {@code RuntimeException} into Cassandra's schema code: a failure is logged and
 * forbids the next warm start; an {@code Error} (a {@code VirtualMachineError}) is not caught.
 */
final class CachingChanges implements SchemaChangeListener {
  private static final Logger LOG = LoggerFactory.getLogger(CachingChanges.class);
  private static final Set<String> LOCAL_SYSTEM = Set.of("system", "system_schema");

  private final java.util.function.Consumer<TableId> floor;
  private final String name;
  private volatile boolean failed;
  private volatile boolean registered;

  CachingChanges(InvalidationRecords records, String name) {
    this(records::invalidateTable, name);
  }

  /** @param floor records a table floor (tests inject failures) */
  CachingChanges(java.util.function.Consumer<TableId> floor, String name) {
    this.floor = floor;
    this.name = name;
  }

  /** Listens to Cassandra's schema changes; false (logged) if it cannot. */
  boolean register() {
    try {
      Schema.instance.registerListener(this);
      registered = true;
    } catch (RuntimeException | LinkageError e) { // not VirtualMachineError
      LOG.warn("{}: cannot listen to schema changes ({}): a table whose caching is turned off and on again could"
          + " serve partitions older than its writes meanwhile, and the next start will be cold", name, e.toString());
      failed = true;
    }
    return registered;
  }

  void unregister() {
    if (registered) {
      try {
        Schema.instance.unregisterListener(this);
      } catch (RuntimeException e) {
        LOG.debug("unregister failed", e);
      }
    }
  }

  /** Whether every caching change of this run was recorded (a warm start may follow). */
  boolean complete() {
    return registered && !failed;
  }

  @Override
  public void onPreAlterTable(TableMetadata before, TableMetadata after) {
    changed(before, after);
  }

  @Override
  public void onPreAlterView(ViewMetadata before, ViewMetadata after) {
    changed(before.metadata, after.metadata);
  }

  private void changed(TableMetadata before, TableMetadata after) {
    try {
      boolean was = before.params.caching.cacheRows();
      boolean is = after.params.caching.cacheRows();
      if (was != is) {
        floor.accept(after.id);
        LOG.info("{}: {}.{} {} caching rows: its cached partitions are dropped (a floor, no flash read)", name,
            after.keyspace, after.name, is ? "starts" : "stops");
      }
    } catch (RuntimeException e) { // not Error: a VirtualMachineError must reach Cassandra's handling
      failed = true;
      LOG.error("{}: a caching change of {}.{} was not recorded ({}): the next start will be cold; run nodetool"
          + " invalidaterowcache after turning its row caching back on", name, after.keyspace, after.name, e.toString());
    }
  }

  /**
   * A floor for every table or view in {@code tables} (those with entries stored on flash, this run or
   * kept by a warm start) that the schema has and that does not cache rows; returns how many. A table
   * with nothing on flash needs no floor (nothing of it can be served stale). Throws if the schema cannot
   * be read.
   */
  static int floorTablesNotCachingRows(InvalidationRecords records, java.util.Collection<TableId> tables) {
    int n = 0;
    for (TableId id : tables) {
      TableMetadata t = Schema.instance.getTableMetadata(id);
      if (t != null && !LOCAL_SYSTEM.contains(t.keyspace) && !t.params.caching.cacheRows()) {
        records.invalidateTable(id);
        n++;
      }
    }
    return n;
  }
}
