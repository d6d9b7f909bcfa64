package io.hybridcache.core.engine;

import io.hybridcache.core.device.AtomicFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A checkpoint of the compact index ({@link HeapIndex}): its mappings plus where the log stood when the
 * checkpoint began, so that recovery can replay what was written after it (ARIES fuzzy checkpoint with
 * LFS roll-forward: the checkpoint, then the segments' entries from its start on, minus the invalidations
 * journaled since).
 *
 * <p>Thread-safe: stateless. Concurrency: {@link #write} copies the index with {@link HeapIndex#forEach},
 * one stripe at a time under that stripe's read lock: lookups never wait for it (they read optimistically)
 * and a writer waits at most for the copy of one stripe. The copy is fuzzy: each stripe is seen as of its
 * own copy, which is why the caller records the start before copying and journals invalidations from then on.
 *
 * <p>Format: see {@link #HEADER_BYTES}. Written to {@code <name>.tmp}, forced and renamed over the
 * file ({@link AtomicFile}): a crash leaves the old checkpoint or the new one.
 */
final class IndexCheckpoint {
  private static final Logger LOG = LoggerFactory.getLogger(IndexCheckpoint.class);

  static final byte[] MAGIC = "HCIXCKPT".getBytes(StandardCharsets.US_ASCII);
  /** Bump on any change of the layout at {@link #HEADER_BYTES}; another version reads as absent (cold). */
  static final int FORMAT_VERSION = 1;
  /**
   * Layout, little-endian:
   *
   * <pre>
   *  offset 0   magic             8 bytes  "HCIXCKPT"
   *  offset 8   format version    int      {@link #FORMAT_VERSION}
   *  offset 12  stripes           int      stripe count of the index (identities depend on it)
   *  offset 16  epoch             long     journal epoch whose records apply on top
   *  offset 24  journaled         int      1 if invalidations were journaled from the start on (else only
   *                                        a clean open may use it)
   *  offset 28  active count      int      a
   *  offset 32  next segment id   long     every segment with an id at or above it was opened after the start
   *  offset 40  sequence          long     the sequence counter at the start
   *  offset 48  active segments   a x (segment id long, offset long): entries at or past the offset were
   *                                        appended after the start
   *  then       pairs             n x (key hash with the slot's identity long, packed entry long), neither 0
   *  end - 12   n                 long
   *  end - 4    CRC32C            int      over every byte before it
   * </pre>
   */
  static final int HEADER_BYTES = 48;
  static final int PAIR_BYTES = 16;
  static final int TRAILER_BYTES = 12;
  private static final int IO_BUFFER_BYTES = 1 << 16;
  private static final int MAX_ACTIVE = 1 << 16;

  private IndexCheckpoint() {}

  /**
   * Where the log stood when a checkpoint began: segments with an id of at least {@code nextSegmentId},
   * and the active segments {@code activeIds} from {@code activeOffsets} on, hold what was written after.
   */
  public record Start(long nextSegmentId, long sequence, long[] activeIds, long[] activeOffsets) {
    public Start {
      if (activeIds.length != activeOffsets.length) {
        throw new IllegalArgumentException("ids and offsets differ in length");
      }
    }

    /** The offset from which segment {@code id} was written after the start, or -1 if it holds nothing new. */
    public long replayFrom(long id) {
      if (id >= nextSegmentId) {
        return 0;
      }
      for (int i = 0; i < activeIds.length; i++) {
        if (activeIds[i] == id) {
          return activeOffsets[i];
        }
      }
      return -1;
    }
  }

  /** A checkpoint read back. */
  public record Loaded(HeapIndex index, long epoch, boolean journaled, Start start) {}

  /** Writes a checkpoint of {@code index} (fuzzy, see the class comment), atomically replacing {@code file}. */
  public static void write(Path file, HeapIndex index, long epoch, boolean journaled, Start start)
      throws IOException {
    AtomicFile.replace(file, ch -> {
      ByteBuffer buf = ByteBuffer.allocate(IO_BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      CRC32C crc = new CRC32C();
      buf.put(MAGIC).putInt(FORMAT_VERSION).putInt(index.stripeCount()).putLong(epoch).putInt(journaled ? 1 : 0)
          .putInt(start.activeIds().length).putLong(start.nextSegmentId()).putLong(start.sequence());
      for (int i = 0; i < start.activeIds().length; i++) {
        if (buf.remaining() < PAIR_BYTES) {
          writeOut(ch, buf, crc);
        }
        buf.putLong(start.activeIds()[i]).putLong(start.activeOffsets()[i]);
      }
      long[] count = {0};
      IOException[] failed = {null};
      index.forEach((hash, entry) -> {
        if (failed[0] != null) {
          return;
        }
        try {
          if (buf.remaining() < PAIR_BYTES) {
            writeOut(ch, buf, crc);
          }
        } catch (IOException e) {
          failed[0] = e;
          return;
        }
        buf.putLong(hash).putLong(entry);
        count[0]++;
      });
      if (failed[0] != null) {
        throw failed[0];
      }
      if (buf.remaining() < 8) {
        writeOut(ch, buf, crc);
      }
      buf.putLong(count[0]);
      HeapIndex.writeCrcTrailer(ch, buf, crc);
    });
  }

  /**
   * Reads a checkpoint back; null (cold) if there is none. Bad content never throws: a file cut short,
   * of another magic or version, with a zero pair or a CRC32C mismatch is logged and read as none.
   * The index is sized for {@code expectedEntries}, or the file's count if larger.
   */
  public static Loaded read(Path file, long expectedEntries) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long length = ch.size();
      if (length < HEADER_BYTES + TRAILER_BYTES) {
        return corrupt(file, "length " + length);
      }
      ByteBuffer buf = ByteBuffer.allocate(IO_BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      CRC32C crc = new CRC32C();
      buf.limit(HEADER_BYTES);
      readFully(ch, buf);
      crc.update(buf.duplicate());
      byte[] magic = new byte[MAGIC.length];
      buf.get(magic);
      int version = buf.getInt();
      int stripes = buf.getInt();
      long epoch = buf.getLong();
      boolean journaled = buf.getInt() == 1;
      int active = buf.getInt();
      long nextSegmentId = buf.getLong();
      long sequence = buf.getLong();
      if (!Arrays.equals(magic, MAGIC) || version != FORMAT_VERSION) {
        return corrupt(file, "magic or format version " + version);
      }
      if (stripes < 1 || stripes > (1 << 16) || Integer.bitCount(stripes) != 1 || active < 0 || active > MAX_ACTIVE) {
        return corrupt(file, "stripes " + stripes + ", active segments " + active);
      }
      long pairBytes = length - HEADER_BYTES - TRAILER_BYTES - (long) active * PAIR_BYTES;
      if (pairBytes < 0 || pairBytes % PAIR_BYTES != 0) {
        return corrupt(file, "length " + length + " is not header + pairs + trailer");
      }
      long[] ids = new long[active];
      long[] offsets = new long[active];
      for (int i = 0; i < active; i++) {
        buf.clear().limit(PAIR_BYTES);
        readFully(ch, buf);
        crc.update(buf.duplicate());
        ids[i] = buf.getLong();
        offsets[i] = buf.getLong();
      }
      long count = pairBytes / PAIR_BYTES;
      HeapIndex index = HeapIndex.readPairs(ch, buf, crc, count,
          HeapIndex.forLoading(expectedEntries, count, stripes));
      if (index == null) {
        return corrupt(file, "zero key or value");
      }
      buf.clear().limit(TRAILER_BYTES);
      readFully(ch, buf);
      long stored = buf.getLong();
      crc.update(buf.duplicate().position(0).limit(8));
      if (stored != count || buf.getInt() != (int) crc.getValue()) {
        return corrupt(file, "count or CRC32C mismatch");
      }
      return new Loaded(index, epoch, journaled, new Start(nextSegmentId, sequence, ids, offsets));
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      LOG.warn("Cannot read index checkpoint {}; starting cold", file, e);
      return null;
    }
  }

  private static Loaded corrupt(Path file, String why) {
    LOG.warn("Index checkpoint {} is corrupt ({}); starting cold", file, why);
    return null;
  }

  private static void readFully(FileChannel ch, ByteBuffer buf) throws IOException {
    HeapIndex.readFully(ch, buf);
  }

  private static void writeOut(FileChannel ch, ByteBuffer buf, CRC32C crc) throws IOException {
    HeapIndex.writeOut(ch, buf, crc);
  }
}
