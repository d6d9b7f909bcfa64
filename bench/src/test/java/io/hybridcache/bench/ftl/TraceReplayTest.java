package io.hybridcache.bench.ftl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class TraceReplayTest {
  static final int SLOT_PAGES = 16;
  static final long SLOT = SLOT_PAGES * 4096L;

  @TempDir
  Path dir;

  /**
   * A log of 40 slots: 10 cold ones rewritten rarely, 30 hot ones all the time, their page writes
   * interleaved; a slot is trimmed before it is opened again. Static streams keep the classes apart.
   */
  public static List<String> twoClassLog() {
    List<String> lines = new ArrayList<>();
    lines.add("op,device_offset,length,class_id,class_name,stream,mapper_streams");
    SplittableRandom rnd = new SplittableRandom(3);
    int[] coldSlots = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    List<Integer> hotFree = new ArrayList<>();
    List<Integer> hotLive = new ArrayList<>();
    for (int s = 10; s < 40; s++) {
      hotFree.add(s);
    }
    int coldNext = 0;
    for (int round = 0; round < 400; round++) {
      // one hot slot opens; after a few rounds the oldest hot slot dies
      int hot = hotFree.remove(0);
      lines.add("O," + hot * SLOT + "," + SLOT + ",16,hot,7,single:0;static:7;dsm:3;filestream:4");
      int cold = -1;
      if (round % 4 == 0) {
        cold = coldSlots[coldNext++ % coldSlots.length];
        lines.add("T," + cold * SLOT + "," + SLOT + ",-1,-,-1");
        lines.add("O," + cold * SLOT + "," + SLOT + ",17,cold,6,single:0;static:6;dsm:0;filestream:1");
      }
      for (int p = 0; p < SLOT_PAGES; p++) {
        lines.add("W," + (hot * SLOT + p * 4096L) + ",4096,16,hot,7");
        if (cold >= 0) {
          lines.add("W," + (cold * SLOT + p * 4096L) + ",4096,17,cold,6");
        }
      }
      hotLive.add(hot);
      if (hotLive.size() > 20) {
        int dead = hotLive.remove(rnd.nextInt(5)); // roughly oldest first
        lines.add("T," + dead * SLOT + "," + SLOT + ",-1,-,-1");
        hotFree.add(dead);
      }
      if (round == 200) {
        lines.add("op,device_offset,length,class_id,class_name,stream,mapper_streams"); // a reopen
        lines.add("E,123,456,16,hot,7,written=1;inv_young=0;inv_old=0;foot_young=1;foot_old=0");
      }
    }
    return lines;
  }

  @Test
  void readsTheTraceAndSeparatesStreams() throws IOException {
    Path f = dir.resolve("trace.csv");
    Files.write(f, twoClassLog());
    TraceReplay t = TraceReplay.read(f);
    assertEquals(List.of("single", "static", "dsm", "filestream"), t.mappers());
    assertEquals(2, t.sessions());
    assertEquals(40 * SLOT_PAGES, t.footprintPages());
    assertEquals(SLOT, t.slotBytes());
    assertEquals((400 + 100) * SLOT, t.writtenBytes());

    TraceReplay.Device d = new TraceReplay.Device(4 * SLOT_PAGES, 0.9, 0, Ftl.Victim.GREEDY, true);
    TraceReplay.Result single = t.replay("single", d);
    TraceReplay.Result stat = t.replay("static", d);
    TraceReplay.Result oracle = t.replay("oracle", d);
    assertEquals(1, single.streamsUsed());
    assertEquals(8, stat.streamsUsed(), "streams 6 and 7 used: ids up to 7");
    assertEquals(2, oracle.streamsUsed(), "as many as the static mapper used");
    assertTrue(single.deviceWaf() > 1.05, "interleaved hot and cold pages must cost copies: " + single);
    assertTrue(stat.deviceWaf() < single.deviceWaf(), stat + " vs " + single);
    assertTrue(oracle.deviceWaf() <= single.deviceWaf(), oracle + " vs " + single);
    assertEquals(stat.deviceWaf(), t.replay("recorded", d).deviceWaf(), 1e-12, "recorded = the static run's streams");

    // one slot per block: every slot dies whole, nothing to copy
    TraceReplay.Device perSlot = new TraceReplay.Device(SLOT_PAGES, 0.9, 0, Ftl.Victim.GREEDY, true);
    assertEquals(1.0, t.replay("static", perSlot).deviceWaf(), 1e-12);
    // a device that ignores the trims only learns of dead pages when they are overwritten
    TraceReplay.Device noTrims = new TraceReplay.Device(4 * SLOT_PAGES, 0.9, 0, Ftl.Victim.GREEDY, false);
    assertTrue(t.replay("single", noTrims).deviceWafAll() >= single.deviceWafAll() - 1e-9);
    assertThrows(IllegalArgumentException.class, () -> t.replay("nosuchmapper", d));
  }

  @Test
  void aBadLineNamesItsNumber() throws IOException {
    Path f = dir.resolve("bad.csv");
    Files.write(f, List.of("op,device_offset,length,class_id,class_name,stream,mapper_streams", "W,4096,4096,0,FRESH,0",
        "W,100,4096,0,FRESH,0"));
    IOException e = assertThrows(IOException.class, () -> TraceReplay.read(f));
    assertTrue(e.getMessage().contains(":3:"), e.getMessage());
  }

  @Test
  void manyStreamsOnASmallDeviceCloseOpenBlocksInsteadOfFailing() {
    Ftl ftl = new Ftl(16, 12, 150, Ftl.Victim.GREEDY);
    SplittableRandom rnd = new SplittableRandom(5);
    for (int i = 0; i < 20_000; i++) {
      ftl.write(rnd.nextInt(150), rnd.nextInt(8));
    }
    assertEquals(150, ftl.validPages());
    assertTrue(ftl.closedOpenBlocks() > 0);
  }
}
