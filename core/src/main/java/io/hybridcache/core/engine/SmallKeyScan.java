package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The keys of the small-object engine's objects for {@link Engine#keys()}: every set page in 1 MiB reads
 * ({@link SmallSets#keysOf}), then the log (its write buffer and the pages its index names, from one
 * snapshot), then the keys the log moved into a set or readmitted while the scan ran.
 *
 * <p>Why the third pass: an object may leave the log for a set the first pass has already read (a move),
 * or for a new log page after the snapshot (a readmission) and then the page the snapshot named is
 * overwritten. It was held throughout, so it must be returned: from the start, the log records the key
 * of every object it relocates ({@link SmallLog#recordRelocations}) until the log pass has ended. An
 * object moved after the first pass read its set is seen twice. Objects evicted, dropped or removed
 * meanwhile may or may not be returned (weakly consistent, as the DRAM pass).
 *
 * <p>Never partial: a read error, a set rewritten on every attempt, or any other Throwable of a step (an
 * Error of a mapped read, no direct memory for the chunk) hands the Throwable to {@code onFailure}, which
 * empties the engine (so every key is returned or invalidated; {@link SmallTier} counts all but a read
 * error as a fault), and ends the scan: {@link #hasNext} never throws.
 *
 * <p>Direct memory: one 1 MiB chunk, allocated by the first step (inside its guard) and dropped when the
 * scan ends; none for a scan never iterated.
 *
 * <p>Not thread-safe: one caller iterates. It runs beside lookups, puts and the log's reclaim without
 * holding their locks.
 */
final class SmallKeyScan implements Iterator<byte[]> {
  private static final int CHUNK_SETS = 256;

  private final SmallSets sets;
  private final SmallLog log;
  private final Consumer<Throwable> onFailure;
  private final Set<ByteKey> relocated = ConcurrentHashMap.newKeySet();
  private final ArrayDeque<byte[]> ready = new ArrayDeque<>();
  private final List<byte[]> found = new ArrayList<>();
  /** The scan's read buffer: null until the first step, and again once the scan has ended. */
  private ByteBuffer chunk;
  private int nextSet;
  private SmallLog.KeySnapshot snapshot;
  private int nextSlot;
  private Iterator<ByteKey> relocatedKeys;
  private boolean done;
  /** Test seam: runs once when the set pass has ended, before the log's snapshot. */
  volatile Runnable afterSetPass = () -> { };
  /** Test seam: allocates the chunk (an aligned direct buffer of the given bytes). */
  volatile IntFunction<ByteBuffer> allocate = Device::allocateAligned;

  SmallKeyScan(SmallSets sets, SmallLog log, Consumer<Throwable> onFailure) {
    this.sets = sets;
    this.log = log;
    this.onFailure = onFailure;
    log.recordRelocations(relocated);
  }

  @Override
  public boolean hasNext() {
    while (ready.isEmpty() && !done) {
      step();
    }
    return !ready.isEmpty();
  }

  @Override
  public byte[] next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return ready.poll();
  }

  private void step() {
    try {
      found.clear();
      if (chunk == null) {
        chunk = allocate.apply(CHUNK_SETS * SmallSetPage.PAGE_BYTES);
      }
      if (nextSet < sets.sets()) {
        int perSlot = sets.setsPerSlot();
        int to = Math.min(Math.min(nextSet + CHUNK_SETS, (nextSet / perSlot + 1) * perSlot), sets.sets());
        sets.keysOf(nextSet, to, chunk, found);
        nextSet = to;
      } else if (snapshot == null) {
        afterSetPass.run();
        snapshot = log.keySnapshot();
        found.addAll(snapshot.bufferKeys());
      } else if (nextSlot < snapshot.slots().length) {
        int[] slots = snapshot.slots();
        int from = nextSlot;
        int page = slots[from] / SmallLog.OBJECTS_PER_PAGE;
        int to = from;
        while (to < slots.length && slots[to] / SmallLog.OBJECTS_PER_PAGE == page) {
          to++;
        }
        log.keysOnPage(slots, from, to, snapshot.tailPage(), chunk, found);
        nextSlot = to;
      } else if (relocatedKeys == null) {
        log.stopRecording(relocated);
        relocatedKeys = relocated.iterator();
      } else if (relocatedKeys.hasNext()) {
        found.add(relocatedKeys.next().bytes());
      } else {
        end();
      }
      ready.addAll(found);
    } catch (Throwable t) { // IOException, RuntimeException, an Error: never out of hasNext, never partial
      end();
      log.stopRecording(relocated);
      onFailure.accept(t);
    }
  }

  private void end() {
    done = true;
    chunk = null; // its direct memory goes with the next GC
  }
}
