package io.hybridcache.core.engine;

import io.hybridcache.core.device.AtomicFile;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The small-object engine's DRAM state saved at a clean close, so the next open is warm: the highest
 * sequence the engine may hold, the set region's epoch, filters, object counts and poisoned sets ({@link
 * SmallSets#writeTo}) and the log's epoch, ring and index ({@link SmallLog#writeTo}, the index in its
 * compact form: {@link SmallLogIndex#writeTo}). Written only after every call has ended, the log's buffer
 * is on flash and the slot files are synced ({@link SmallTier}), so it describes the pages exactly and an OS
 * crash after it cannot revert one; read and then deleted at the next open before anything is served, so
 * a process killed after that open starts cold the time after (nothing records what it changed since, and
 * a checkpoint of an older state could bring back a removed version).
 *
 * <p><b>Format</b> (big-endian, {@code small/small.ckpt}, replaced atomically by {@link AtomicFile}):
 * magic {@code HCSMCKPT}, format version (int, {@value #FORMAT_VERSION}), the geometry ({@link Geometry}:
 * slots, slot bytes, log slots, sets, filter bits per set, filter hashes, tag bits: a filter read with
 * other hashes could miss a key its set holds, and a put would then leave that older version unflagged),
 * the highest sequence held (long), then the sets' section, the log's section, and last the CRC32C of
 * everything before it (int). A file of another geometry, version or checksum, cut short or with bytes
 * left over, is logged and read as none (a cold open).
 *
 * <p><b>Streaming.</b> Both directions go through one {@value #BUFFER_BYTES}-byte direct buffer ({@link
 * Out}, {@link In}), the CRC computed as the bytes pass: a save allocates nothing that grows with the
 * engine (the state is written from the live filters, counts and index), and a read builds the filters,
 * counts and index a warm region adopts, validating each section as it goes (every count bounded by the
 * geometry before anything is allocated for it); the region is used only once the CRC matched.
 */
final class SmallCheckpoint {
  private static final Logger LOG = LoggerFactory.getLogger(SmallCheckpoint.class);
  static final String FILE = "small.ckpt";
  static final byte[] MAGIC = "HCSMCKPT".getBytes(StandardCharsets.US_ASCII);
  /** 2: the highest sequence held, and the log index in its compact form (1: four ints per entry). */
  static final int FORMAT_VERSION = 3; // 3: SmallSetPage format 2 (a checkpoint of version 2 describes version-1 pages)
  /** The one buffer a save or read goes through (direct: no temporary copy per channel call). */
  static final int BUFFER_BYTES = 64 * 1024;

  /** What the saved state must match to be used: the region's shape in this open. */
  record Geometry(int slots, long slotBytes, int logSlots, int sets, int bloomBitsPerSet, int bloomHashes,
      int tagBits) {}

  /** A checkpoint read back: the highest sequence the engine may hold, and the state its region adopts. */
  record Loaded(long maxSequence, SmallSets.Saved sets, SmallLog.Saved log) {}

  /** Reads a checkpoint (a seam: {@link SmallTier#open} is given {@link #read} in production). */
  @FunctionalInterface
  interface Reader {
    Loaded read(Path file, Geometry g) throws IOException;
  }

  private SmallCheckpoint() {}

  /**
   * Replaces {@code file} with the state of {@code sets} and {@code log}, streamed from them. Call with no
   * other call running (close).
   */
  static void write(Path file, Geometry g, long maxSequence, SmallSets sets, SmallLog log) throws IOException {
    AtomicFile.replace(file, ch -> {
      Out out = new Out(ch);
      out.write(MAGIC);
      out.writeInt(FORMAT_VERSION);
      writeGeometry(out, g);
      out.writeLong(maxSequence);
      sets.writeTo(out);
      log.writeTo(out);
      out.finish();
    });
  }

  /** The saved state, or null (logged) if there is none or it does not match {@code g}. */
  static Loaded read(Path file, Geometry g) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      In in = new In(ch);
      byte[] magic = new byte[MAGIC.length];
      in.readFully(magic);
      if (!Arrays.equals(magic, MAGIC) || in.readInt() != FORMAT_VERSION) {
        return ignored(file, "another format");
      }
      Geometry saved = readGeometry(in);
      if (!saved.equals(g)) {
        return ignored(file, "saved for " + saved + ", this open is " + g);
      }
      long maxSequence = in.readLong();
      SmallSets.Saved sets = SmallSets.readFrom(in, g.sets(), g.bloomBitsPerSet(), g.bloomHashes());
      SmallLog.Saved log = SmallLog.readFrom(in, g.sets(), logObjectSlots(g), g.tagBits());
      in.finish();
      return new Loaded(maxSequence, sets, log);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException | RuntimeException e) {
      return ignored(file, e.toString());
    }
  }

  /** Object slots of the log of geometry {@code g} (its pages times {@link SmallLog#OBJECTS_PER_PAGE}). */
  static int logObjectSlots(Geometry g) {
    long pages = g.slotBytes() / SmallSetPage.PAGE_BYTES * g.logSlots();
    return (int) Math.min(Integer.MAX_VALUE, pages * SmallLog.OBJECTS_PER_PAGE);
  }

  private static Loaded ignored(Path file, String why) {
    LOG.warn("the small-object engine's checkpoint {} is not usable ({}); starting cold", file, why);
    return null;
  }

  private static void writeGeometry(Out out, Geometry g) throws IOException {
    out.writeInt(g.slots());
    out.writeLong(g.slotBytes());
    out.writeInt(g.logSlots());
    out.writeInt(g.sets());
    out.writeInt(g.bloomBitsPerSet());
    out.writeInt(g.bloomHashes());
    out.writeInt(g.tagBits());
  }

  private static Geometry readGeometry(In in) throws IOException {
    return new Geometry(in.readInt(), in.readLong(), in.readInt(), in.readInt(), in.readInt(), in.readInt(),
        in.readInt());
  }

  /** I/O that makes room in, or brings bytes into, a stream's buffer. */
  @FunctionalInterface
  private interface Refill {
    void run() throws IOException;
  }

  /** Copies all of {@code b} into ({@code put}) or out of {@code buf}, a buffer's worth at a time. */
  private static void transfer(ByteBuffer buf, byte[] b, boolean put, Refill refill) throws IOException {
    for (int off = 0; off < b.length; ) {
      refill.run();
      int n = Math.min(buf.remaining(), b.length - off);
      if (put) {
        buf.put(b, off, n);
      } else {
        buf.get(b, off, n);
      }
      off += n;
    }
  }

  /** A checkpoint's bytes on their way to the file: one buffer, the CRC32C of every byte written through it. */
  static final class Out {
    private final FileChannel ch;
    private final ByteBuffer buf = ByteBuffer.allocateDirect(BUFFER_BYTES);
    private final CRC32C crc = new CRC32C();

    Out(FileChannel ch) {
      this.ch = ch;
    }

    void writeInt(int v) throws IOException {
      room(Integer.BYTES);
      buf.putInt(v);
    }

    void writeLong(long v) throws IOException {
      room(Long.BYTES);
      buf.putLong(v);
    }

    void write(byte[] b) throws IOException {
      transfer(buf, b, true, () -> room(1));
    }

    /** Writes what is buffered and the CRC32C of everything before it. */
    void finish() throws IOException {
      drain();
      buf.putInt((int) crc.getValue()).flip();
      AtomicFile.writeFully(ch, buf);
    }

    private void room(int n) throws IOException {
      if (buf.remaining() < n) {
        drain();
      }
    }

    private void drain() throws IOException {
      buf.flip();
      crc.update(buf.duplicate());
      AtomicFile.writeFully(ch, buf);
      buf.clear();
    }
  }

  /**
   * A checkpoint's bytes read back through one buffer, the CRC32C computed over every byte read before the
   * trailing one; {@link #finish} checks it and that nothing is left over.
   */
  static final class In {
    private final FileChannel ch;
    private final ByteBuffer buf = ByteBuffer.allocateDirect(BUFFER_BYTES);
    private final CRC32C crc = new CRC32C();
    /** Bytes of the file before its CRC not yet read into {@link #buf}. */
    private long left;

    In(FileChannel ch) throws IOException {
      this.ch = ch;
      long size = ch.size();
      if (size < MAGIC.length + Integer.BYTES * 2) {
        throw new IOException("cut short: " + size + " bytes");
      }
      this.left = size - Integer.BYTES;
      buf.limit(0);
    }

    int readInt() throws IOException {
      need(Integer.BYTES);
      return buf.getInt();
    }

    long readLong() throws IOException {
      need(Long.BYTES);
      return buf.getLong();
    }

    void readFully(byte[] b) throws IOException {
      transfer(buf, b, false, () -> need(1));
    }

    /** Checks that every byte before the CRC was read and that the CRC matches them. */
    void finish() throws IOException {
      if (buf.hasRemaining() || left > 0) {
        throw new IOException((buf.remaining() + left) + " bytes left over");
      }
      ByteBuffer stored = ByteBuffer.allocate(Integer.BYTES);
      while (stored.hasRemaining()) {
        if (ch.read(stored) < 0) {
          throw new EOFException("the checksum is cut short");
        }
      }
      if (stored.getInt(0) != (int) crc.getValue()) {
        throw new IOException("checksum mismatch");
      }
    }

    /** Makes {@code n} (at most the buffer's size) bytes available in {@link #buf}. */
    private void need(int n) throws IOException {
      if (buf.remaining() >= n) {
        return;
      }
      buf.compact();
      while (buf.position() < n) {
        if (left == 0) {
          throw new EOFException("cut short");
        }
        int start = buf.position();
        buf.limit((int) Math.min(buf.capacity(), start + left));
        int r = ch.read(buf);
        if (r < 0) {
          throw new EOFException("cut short");
        }
        left -= r;
        crc.update(buf.duplicate().flip().position(start));
      }
      buf.flip();
    }
  }
}
