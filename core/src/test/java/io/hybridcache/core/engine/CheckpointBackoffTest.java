package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.AtomicFile;
import io.hybridcache.core.device.MemoryDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25 item 8: a checkpoint that keeps failing (a full disk) is retried with back-off, not on every
 * maintenance turn; the failures are counted; and once the journal overflowed meanwhile, the cache says
 * that a crash now would make the next open cold. The clock is the test's; the checkpoint is made to
 * fail by a directory where its temp file goes.
 */
@Timeout(60)
class CheckpointBackoffTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private static final long INTERVAL_BYTES = 1_000;

  @TempDir Path dir;

  private final AtomicLong clock = new AtomicLong(1_000 * SECOND);
  private final AtomicLong written = new AtomicLong();
  private final Counters counters = new Counters();
  private final SegmentTable table = new SegmentTable(8);
  private final SegmentWriter writer = new SegmentWriter(new MemoryDevice(8, 64 * 1024), table, counters, null,
      16 * 1024, new AtomicLong()::get);
  private InvalidationJournal journal;
  private Checkpointer checkpointer;
  private Path blocker;

  @BeforeEach
  void open() throws Exception {
    table.rebuildFreeList();
    writer.slotSource(table::takeFreeSlot);
    HeapIndex index = new HeapIndex(1_000, 4);
    for (long h = 1; h <= 100; h++) {
      index.put(h, IndexEntry.pack(SegmentAddress.of(1, h * 16), 100));
    }
    journal = InvalidationJournal.create(dir.resolve(InvalidationJournal.FILE), 1, InvalidationJournal.MIN_CAPACITY,
        false);
    checkpointer = new Checkpointer("test", dir.resolve("index.ckpt"), index, journal, writer, table,
        new AtomicLong(), written::get, INTERVAL_BYTES, counters, clock::get);
    blocker = Files.createDirectory(dir.resolve("index.ckpt" + AtomicFile.TEMP_SUFFIX));
  }

  @AfterEach
  void close() throws Exception {
    checkpointer.stop(System.nanoTime() + 10 * SECOND);
    journal.close();
    writer.close();
  }

  /** One maintenance turn's call, then the copy it started is waited for. */
  private void turn() {
    checkpointer.maybeStart();
    assertTrue(checkpointer.awaitRunning(System.nanoTime() + 10 * SECOND), "the copy finishes");
  }

  @Test
  void aFailingCheckpointIsRetriedWithBackOffAndCounted() throws Exception {
    written.set(INTERVAL_BYTES); // due
    turn();
    assertEquals(1, counters.checkpointFailures.sum());
    for (int i = 0; i < 100; i++) {
      turn(); // 100 maintenance turns at the same instant
    }
    assertEquals(1, counters.checkpointFailures.sum(), "no retry before the back-off ends");

    clock.addAndGet(SECOND - 1);
    turn();
    assertEquals(1, counters.checkpointFailures.sum(), "first back-off: 1 s");
    clock.addAndGet(1);
    turn();
    assertEquals(2, counters.checkpointFailures.sum(), "retried after 1 s");
    clock.addAndGet(SECOND);
    turn();
    assertEquals(2, counters.checkpointFailures.sum(), "second back-off: 2 s");
    clock.addAndGet(SECOND);
    turn();
    assertEquals(3, counters.checkpointFailures.sum(), "retried after 2 s");

    Files.delete(blocker); // space again
    clock.addAndGet(4 * SECOND);
    turn();
    assertEquals(3, counters.checkpointFailures.sum());
    assertEquals(1, counters.checkpoints.sum(), "the retry succeeds once it can");
    clock.addAndGet(Checkpointer.MIN_INTERVAL_NANOS);
    written.addAndGet(INTERVAL_BYTES);
    turn();
    assertEquals(2, counters.checkpoints.sum(), "a success ends the back-off");
  }

  @Test
  void aJournalThatOverflowedWhileCheckpointsFailSaysTheNextUncleanOpenIsCold() throws Exception {
    written.set(INTERVAL_BYTES);
    turn();
    assertEquals(1, counters.checkpointFailures.sum());
    assertFalse(checkpointer.nextUncleanOpenCold(), "the previous checkpoint and the journal still recover");
    for (long i = 1; i <= InvalidationJournal.MIN_CAPACITY + 1; i++) {
      journal.invalidated(i, i);
    }
    assertTrue(checkpointer.nextUncleanOpenCold(), "the journal overflowed: a crash now starts cold");

    Files.delete(blocker);
    clock.addAndGet(SECOND);
    turn();
    assertEquals(1, counters.checkpoints.sum());
    assertFalse(checkpointer.nextUncleanOpenCold(), "a durable checkpoint makes it warm again");
  }
}
