package io.hybridcache.core.engine;

import io.hybridcache.core.device.AtomicFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The small-object engine's DRAM state saved at a clean close, so the next open is warm: the set
 * region's epoch, filters, object counts and poisoned sets ({@link SmallSets.Saved}) and the log's epoch,
 * ring and index ({@link SmallLog.Saved}). Written only after every call has ended and the log's buffer is
 * on flash, so it describes the pages exactly; read and then deleted at the next open before anything
 * is served, so a process killed after that open starts cold the time after (nothing records what it
 * changed since, and a checkpoint of an older state could bring back a removed version).
 *
 * <p><b>Format</b> (big-endian, {@code small/small.ckpt}, replaced atomically by {@link AtomicFile}):
 * magic {@code HCSMCKPT}, format version (int), the geometry ({@link Geometry}: slots, slot bytes, log
 * slots, sets, filter bits per set, filter hashes, tag bits: a filter read with other hashes could miss a
 * key its set holds, and a put would then leave that older version unflagged), then the sets' epoch (long), filter words (int count, ints),
 * counts (int count, bytes) and poisoned sets (int count, ints), the log's epoch, tail page and buffer page
 * (longs) and index entries (int count, ints: four per entry), and last the CRC32C of everything before
 * it (int). A file of another geometry, version or checksum, or cut short, is logged and read as none.
 */
final class SmallCheckpoint {
  private static final Logger LOG = LoggerFactory.getLogger(SmallCheckpoint.class);
  static final String FILE = "small.ckpt";
  static final byte[] MAGIC = "HCSMCKPT".getBytes(StandardCharsets.US_ASCII);
  static final int FORMAT_VERSION = 1;

  /** What the saved state must match to be used: the region's shape in this open. */
  record Geometry(int slots, long slotBytes, int logSlots, int sets, int bloomBitsPerSet, int bloomHashes,
      int tagBits) {}

  /** A checkpoint read back. */
  record Loaded(SmallSets.Saved sets, SmallLog.Saved log) {}

  private SmallCheckpoint() {}

  static void write(Path file, Geometry g, SmallSets.Saved sets, SmallLog.Saved log) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + sets.bloomWords().length * 4
        + sets.counts().length + log.entries().length * 4);
    DataOutputStream out = new DataOutputStream(bytes);
    out.write(MAGIC);
    out.writeInt(FORMAT_VERSION);
    writeGeometry(out, g);
    out.writeLong(sets.epoch());
    writeInts(out, sets.bloomWords());
    out.writeInt(sets.counts().length);
    out.write(sets.counts());
    writeInts(out, sets.poisoned());
    out.writeLong(log.epoch());
    out.writeLong(log.tailPage());
    out.writeLong(log.bufferPage());
    writeInts(out, log.entries());
    CRC32C crc = new CRC32C();
    crc.update(bytes.toByteArray());
    out.writeInt((int) crc.getValue());
    out.flush();
    ByteBuffer content = ByteBuffer.wrap(bytes.toByteArray());
    AtomicFile.replace(file, ch -> AtomicFile.writeFully(ch, content));
  }

  /** The saved state, or null (logged) if there is none or it does not match {@code g}. */
  static Loaded read(Path file, Geometry g) {
    byte[] all;
    try {
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
        return null;
      }
      all = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      LOG.warn("cannot read the small-object engine's checkpoint {} ({}); starting cold", file, e.toString());
      return null;
    }
    try {
      if (all.length < MAGIC.length + 8) {
        return ignored(file, "cut short");
      }
      CRC32C crc = new CRC32C();
      crc.update(all, 0, all.length - 4);
      if ((int) crc.getValue() != ByteBuffer.wrap(all, all.length - 4, 4).getInt()) {
        return ignored(file, "checksum mismatch");
      }
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(all, 0, all.length - 4));
      byte[] magic = in.readNBytes(MAGIC.length);
      if (!Arrays.equals(magic, MAGIC) || in.readInt() != FORMAT_VERSION) {
        return ignored(file, "another format");
      }
      Geometry saved = readGeometry(in);
      if (!saved.equals(g)) {
        return ignored(file, "saved for " + saved + ", this open is " + g);
      }
      long setsEpoch = in.readLong();
      int[] words = readInts(in);
      byte[] counts = in.readNBytes(in.readInt());
      int[] poisoned = readInts(in);
      SmallSets.Saved sets = new SmallSets.Saved(setsEpoch, words, counts, poisoned);
      SmallLog.Saved log = new SmallLog.Saved(in.readLong(), in.readLong(), in.readLong(), readInts(in));
      if (in.available() != 0) {
        return ignored(file, in.available() + " bytes left over");
      }
      return new Loaded(sets, log);
    } catch (IOException | RuntimeException e) {
      return ignored(file, e.toString());
    }
  }

  private static Loaded ignored(Path file, String why) {
    LOG.warn("the small-object engine's checkpoint {} is not usable ({}); starting cold", file, why);
    return null;
  }

  private static void writeGeometry(DataOutputStream out, Geometry g) throws IOException {
    out.writeInt(g.slots());
    out.writeLong(g.slotBytes());
    out.writeInt(g.logSlots());
    out.writeInt(g.sets());
    out.writeInt(g.bloomBitsPerSet());
    out.writeInt(g.bloomHashes());
    out.writeInt(g.tagBits());
  }

  private static Geometry readGeometry(DataInputStream in) throws IOException {
    return new Geometry(in.readInt(), in.readLong(), in.readInt(), in.readInt(), in.readInt(), in.readInt(),
        in.readInt());
  }

  private static void writeInts(DataOutputStream out, int[] values) throws IOException {
    out.writeInt(values.length);
    for (int v : values) {
      out.writeInt(v);
    }
  }

  private static int[] readInts(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || (long) n * 4 > in.available()) {
      throw new IOException("an array of " + n + " ints past the end");
    }
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = in.readInt();
    }
    return out;
  }
}
