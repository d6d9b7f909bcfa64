package io.hybridcache.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.LifetimeClass;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.apache.cassandra.schema.TableId;
import org.junit.jupiter.api.Test;

/** Per-table lifetime classes without a node: stable ids in the callers' range, names, fallbacks. */
class TableClassesTest {
  private static TableId table(long msb, long lsb) {
    return TableId.fromUUID(new UUID(msb, lsb));
  }

  @Test
  void aTablesClassIdIsStableAndInTheCallersRange() {
    Set<Integer> ids = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      TableId t = TableId.fromUUID(UUID.nameUUIDFromBytes(("table" + i).getBytes()));
      int id = TableClasses.classId(t);
      assertTrue(id >= LifetimeClass.FIRST_CALLER_ID && id <= LifetimeClass.MAX_ID, "id " + id);
      assertEquals(id, TableClasses.classId(TableId.fromUUID(t.asUUID())), "same table, same id (a restart)");
      ids.add(id);
    }
    assertTrue(ids.size() > 985, "1,000 tables spread over the 65,520 ids: " + ids.size());
  }

  @Test
  void classesAreNamedAfterTheTableAndReused() {
    TableClasses c = TableClasses.perTable(id -> id.asUUID().getLeastSignificantBits() == 1 ? "ks.hot" : null);
    LifetimeClass hot = c.of(table(7, 1));
    assertEquals("ks.hot", hot.name());
    assertEquals(TableClasses.classId(table(7, 1)), hot.id());
    assertSame(hot, c.of(table(7, 1)));
    LifetimeClass unknown = c.of(table(7, 2));
    assertEquals("table-" + new UUID(7, 2), unknown.name(), "a table the schema does not know");
    assertNotEquals(hot.id(), unknown.id());
  }

  @Test
  void singlePutsEveryTableInFresh() {
    TableClasses c = TableClasses.single();
    assertSame(LifetimeClass.FRESH, c.of(table(1, 1)));
    assertSame(LifetimeClass.FRESH, c.of(table(2, 2)));
  }

  @Test
  void aNameTheCacheCannotTakeFallsBackToFreshWithoutThrowing() {
    TableClasses c = TableClasses.perTable(id -> "bad,name");
    assertSame(LifetimeClass.FRESH, c.of(table(3, 3)));
    TableClasses failing = TableClasses.perTable(id -> {
      throw new IllegalStateException("schema not loaded");
    });
    assertSame(LifetimeClass.FRESH, failing.of(table(4, 4)));
  }
}
