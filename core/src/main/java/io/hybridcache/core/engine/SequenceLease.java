package io.hybridcache.core.engine;

import io.hybridcache.core.device.AtomicFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * A persisted upper bound of every sequence number on flash, so that an open after a crash restarts the
 * sequence above every entry already written (block-leased ids, as databases lease id ranges).
 *
 * <p>Why: entries carry the sequence of their put, and {@link FlashKeyScan} decides "written before
 * the scan started" by comparing with the current sequence; a counter that restarted lower after a
 * crash would break that argument. The writer calls {@link #cover} before it appends an entry: when the
 * entry's sequence reaches the persisted limit, the limit is raised by {@value #STEP} and written
 * durably first. So no entry on flash has a sequence at or above the limit in the file, and recovery
 * sets the counter to at least that limit. One small synced write per {@value #STEP} sequences.
 *
 * <p>Format of {@value #FILE}, little-endian: limit (8), CRC32C of those 8 bytes (4). A missing or
 * damaged file reads as 0 (nothing leased).
 *
 * <p>Thread-safe: {@link #cover} runs on every thread that writes to flash; its fast path is one volatile
 * read, and raising the limit is synchronized.
 */
final class SequenceLease {
  static final String FILE = "sequence.lease";
  static final long STEP = 1L << 22;
  private static final int BYTES = 12;

  private final Path file;
  private volatile long limit;

  private SequenceLease(Path file, long limit) {
    this.file = file;
    this.limit = limit;
  }

  /** The lease of the cache directory {@code dir}; its limit as last persisted (0 if none). */
  static SequenceLease open(Path dir) throws IOException {
    Path f = dir.resolve(FILE);
    return new SequenceLease(f, read(f));
  }

  /** The persisted limit: every sequence on flash is below it. */
  long limit() {
    return limit;
  }

  /** Makes sure {@code sequence} is below the persisted limit, raising it durably if needed. */
  void cover(long sequence) throws IOException {
    if (sequence < limit) {
      return;
    }
    raise(sequence);
  }

  private synchronized void raise(long sequence) throws IOException {
    if (sequence < limit) {
      return; // another writer raised it meanwhile
    }
    long next = sequence + STEP;
    ByteBuffer b = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(next);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, 8);
    b.putInt((int) crc.getValue()).flip();
    AtomicFile.replace(file, ch -> AtomicFile.writeFully(ch, b));
    limit = next;
  }

  private static long read(Path f) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(f);
    } catch (NoSuchFileException e) {
      return 0;
    }
    if (bytes.length != BYTES) {
      return 0;
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, 8);
    return (int) crc.getValue() == b.getInt(8) ? Math.max(0, b.getLong(0)) : 0;
  }
}
