package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.api.MapperKind;
import io.hybridcache.core.api.PlacementStats;
import io.hybridcache.core.device.FileDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Lifetime classes end to end: own segments, own streams, hints on the segment files, the trace. */
class PlacementTest {
  static final LifetimeClass USERS = LifetimeClass.named(16, "users");
  static final LifetimeClass EVENTS = LifetimeClass.named(17, "events");

  @TempDir
  Path dir;

  @Test
  void callerNamedClassesGetTheirOwnSegmentsStreamsAndHints() throws Exception {
    Path trace = dir.resolve("trace.csv");
    CacheConfig config = TestCaches.small(dir.resolve("cache"), IndexType.HEAP).writeTrace(trace)
        .trimReclaimed(true).placementEpochBytes(4 * TestCaches.SEGMENT).build();
    Map<Integer, Integer> streamOfClass = new HashMap<>();
    try (Engine c = TestCaches.open(config)) {
      for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 1500; i++) {
          c.put(key(i), value(i, round, 300), USERS);
          if (i % 3 == 0) {
            c.put(key(100_000 + i), value(100_000 + i, round, 300), EVENTS);
          }
        }
        c.writeBack();
      }
      c.awaitFlashWrites();
      for (Segment s : c.flashTier().table().segments()) {
        if (s.state() == Segment.State.ACTIVE) {
          assertTrue(s.lifetimeClass().id() != LifetimeClass.FRESH.id(), "nothing was written as FRESH: " + s);
        }
      }
      assertEquals(value(7, 3, 300).length, c.get(key(7)).length);
      PlacementStats p = c.placement();
      assertEquals("static", p.mapper());
      assertEquals(8, p.streams());
      assertTrue(p.epochs() >= 2, "epochs: " + p.epochs());
      for (PlacementStats.ClassPlacement cp : p.classes()) {
        streamOfClass.put(cp.id(), cp.stream());
      }
      assertNotEquals(streamOfClass.get(16), streamOfClass.get(17), "one stream per class: " + p);
      assertEquals("users", p.classes().stream().filter(x -> x.id() == 16).findFirst().orElseThrow().name());
      long perStream = p.bytesPerStream().stream().mapToLong(Long::longValue).sum();
      assertEquals(c.stats().flushBytesWritten() + c.stats().reclaimBytesWritten(), perStream,
          "every device write is counted in its stream");
      assertTrue(p.hintsSet() + p.hintsRefused() > 0);

      // the hint on an active segment's file is its stream's
      Segment active = c.flashTier().table().segments().stream()
          .filter(s -> s.state() == Segment.State.ACTIVE && s.lifetimeClass().id() == 16).findFirst().orElseThrow();
      Assumptions.assumeTrue(p.hintsSet() > 0, "F_SET_RW_HINT unsupported here");
      Path slotFile = ((FileDevice) c.flashTier().device()).slotPath(active.slot());
      assertEquals(WriteLifeHints.forStream(streamOfClass.get(16), 8), FileDevice.getWriteLifeHint(slotFile));
    }

    List<String> lines = Files.readAllLines(trace);
    assertEquals(WriteTrace.HEADER, lines.get(0));
    Map<Long, Integer> slotStream = new HashMap<>();
    int opens = 0;
    int epochLines = 0;
    for (String l : lines.subList(1, lines.size())) {
      String[] f = l.split(",");
      long off = Long.parseLong(f[1]);
      long slotStart = off - off % TestCaches.SEGMENT;
      switch (f[0]) {
        case "O" -> {
          opens++;
          assertEquals(7, f.length, l);
          assertTrue(f[6].matches("single:0;static:\\d+;dsm:\\d+;filestream:\\d+"), l);
          assertTrue(f[6].contains("static:" + f[5]), "the configured mapper's stream: " + l);
          slotStream.put(slotStart, Integer.parseInt(f[5]));
        }
        case "W" -> {
          assertNotNull(slotStream.get(slotStart), "a write into a slot opened before: " + l);
          assertEquals(slotStream.get(slotStart), Integer.parseInt(f[5]), "a write carries its segment's stream: " + l);
        }
        case "T" -> slotStream.remove(slotStart);
        case "E" -> epochLines++;
        default -> throw new AssertionError(l);
      }
    }
    assertTrue(opens > 16, "segments were opened and reused: " + opens);
    assertTrue(epochLines >= 2 * 2, "an epoch line per class and epoch: " + epochLines);
  }

  @Test
  void reservedClassesAreRefusedAndIdsKeepTheirNames() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build())) {
      assertThrows(IllegalArgumentException.class, () -> c.put(key(1), value(1, 1, 10), LifetimeClass.SURVIVOR));
      assertThrows(IllegalArgumentException.class, () -> c.put(key(1), value(1, 1, 10), LifetimeClass.CATALOG));
      c.put(key(1), value(1, 1, 10), USERS);
      assertThrows(IllegalArgumentException.class,
          () -> c.put(key(2), value(2, 1, 10), LifetimeClass.named(16, "orders")));
      c.put(key(3), value(3, 1, 10), LifetimeClass.FRESH);
    }
    assertThrows(IllegalArgumentException.class, () -> LifetimeClass.named(15, "x"));
    assertThrows(IllegalArgumentException.class, () -> LifetimeClass.named(20, "a,b"));
  }

  @Test
  void singleMapperSetsNoHints() {
    try (Engine c = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).streamMapper(MapperKind.SINGLE).build())) {
      for (int i = 0; i < 3000; i++) {
        c.put(key(i), value(i, 1, 300), i % 2 == 0 ? USERS : EVENTS);
      }
      c.writeBack();
      PlacementStats p = c.placement();
      assertEquals(0, p.hintsSet() + p.hintsRefused());
      assertEquals(List.of(c.stats().flushBytesWritten() + c.stats().reclaimBytesWritten()), p.bytesPerStream());
    }
  }

  @Test
  void placementSettingsAreValidatedByName() {
    CacheConfig.Builder b = TestCaches.small(dir, IndexType.HEAP);
    assertMessage("streams", () -> b.streams(0).build());
    assertMessage("streams", () -> b.streams(65).build());
    b.streams(8);
    assertMessage("dsmGroups", () -> b.dsmGroups(9).build());
    assertMessage("dsmGroups", () -> b.dsmGroups(1).build());
    b.dsmGroups(4);
    assertMessage("dsmAlpha", () -> b.dsmAlpha(1).build());
    b.dsmAlpha(4);
    assertMessage("placementEpochBytes", () -> b.placementEpochBytes(4096).build());
    assertMessage("streamMapper", () -> b.placementEpochBytes(0).streamMapper(null).build());
    CacheConfig ok = b.streamMapper(MapperKind.FILESTREAM).build();
    assertEquals(16L * TestCaches.SEGMENT / 4, ok.placementEpochBytes(), "a quarter of the flash by default");
    assertEquals(ok.toString(), ok.toBuilder().build().toString());
  }

  private static void assertMessage(String field, org.junit.jupiter.api.function.Executable e) {
    IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, e);
    assertTrue(ex.getMessage().startsWith(field + " "), ex.getMessage());
  }
}
