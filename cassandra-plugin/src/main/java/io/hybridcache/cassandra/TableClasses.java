package io.hybridcache.cassandra;

import io.hybridcache.core.api.LifetimeClass;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.cassandra.schema.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifetime class of each table's partitions on flash: one class per table, so a write-heavy
 * table's partitions (rewritten and invalidated often) and a read-mostly table's (long-lived) never
 * share a segment, and reclaim does not move the long-lived ones again and again for the sake of the
 * short-lived ones beside them.
 *
 * <p>A class id is kept in every segment header, so a table's id must be the same across restarts:
 * it is derived from the table id (a UUID that Cassandra keeps for the table's life), in
 * [{@value LifetimeClass#FIRST_CALLER_ID}, {@value LifetimeClass#MAX_ID}]. Two tables whose ids fall
 * on the same class share it (1 chance in 65,520 per pair; harmless: they share segments as every
 * table did before). The class is named {@code keyspace.table} when the schema knows the table, else
 * {@code table-<uuid>}.
 *
 * <p>Thread-safe. {@link #of} never throws: a failure (an unexpected name) falls back to FRESH and is
 * logged once, since it runs on Cassandra's read path.
 */
final class TableClasses {
  private static final Logger LOG = LoggerFactory.getLogger(TableClasses.class);
  private static final int IDS = LifetimeClass.MAX_ID + 1 - LifetimeClass.FIRST_CALLER_ID;

  private final Function<TableId, String> names; // null: every table in FRESH
  private final ConcurrentHashMap<TableId, LifetimeClass> byTable = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Integer, LifetimeClass> byId = new ConcurrentHashMap<>();
  private volatile boolean warned;

  private TableClasses(Function<TableId, String> names) {
    this.names = names;
  }

  /**
   * One class per table; {@code names} gives a table's {@code keyspace.table} name, or null if the
   * schema does not know it.
   */
  static TableClasses perTable(Function<TableId, String> names) {
    return new TableClasses(java.util.Objects.requireNonNull(names, "names"));
  }

  /** Every table in FRESH, as before per-table classes (tests compare the two). */
  static TableClasses single() {
    return new TableClasses(null);
  }

  /** The class id of table {@code id}: the same for the table's life, across restarts. */
  static int classId(TableId id) {
    UUID u = id.asUUID();
    long h = u.getMostSignificantBits() * 0x9E3779B97F4A7C15L ^ u.getLeastSignificantBits();
    h ^= h >>> 31;
    return LifetimeClass.FIRST_CALLER_ID + (int) Math.floorMod(h, (long) IDS);
  }

  /** The class table {@code id}'s partitions are written to flash in. */
  LifetimeClass of(TableId id) {
    if (names == null) {
      return LifetimeClass.FRESH;
    }
    LifetimeClass c = byTable.get(id);
    return c != null ? c : byTable.computeIfAbsent(id, this::create);
  }

  private LifetimeClass create(TableId id) {
    try {
      String name = names.apply(id);
      LifetimeClass wanted = LifetimeClass.named(classId(id), name == null ? "table-" + id.asUUID() : name);
      return byId.computeIfAbsent(wanted.id(), k -> wanted); // a table on an id already taken shares its class
    } catch (RuntimeException e) {
      if (!warned) {
        warned = true;
        LOG.warn("hybridcache row cache: no lifetime class for table {} ({}): its partitions go to flash in FRESH",
            id, e.toString());
      }
      return LifetimeClass.FRESH;
    }
  }
}
