package io.hybridcache.jcache;

import io.hybridcache.core.device.AtomicFile;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The class descriptors of a manager directory's compact Java serialization ({@link SerializingCodec}): each
 * descriptor a value's stream needs is written once, here, and the stream carries its number and the CRC of its
 * record instead (Ehcache 3's {@code CompactJavaSerializer} keeps such a table too), so a small serializable
 * value is not several times its data in DRAM and on flash. Keys are not written this way (their bytes must not
 * depend on this file).
 *
 * <p><b>Format</b> of {@value #FILE}: the magic {@code HCCLSD01} and a random 32-bit generation, then one record
 * per descriptor, numbered from 1 in file order: length (int), the descriptor as an {@link ObjectOutputStream}
 * writes an {@link ObjectStreamClass}, and the CRC32C of length and bytes (int); big-endian.
 *
 * <p><b>Never another class.</b> A value names a descriptor by number and by its record's CRC, and carries the
 * table's generation: a value whose number is missing, or names a record of other content (a table restored from
 * an older copy, then appended to), or of another generation, is undecodable (a counted miss). A record is
 * written and forced to the device before its number is returned; a failed write or force cuts the file back to
 * its length before it (and if that fails too, the table takes no more records), so the file's numbering and the
 * numbers handed out never part. The file is started anew, with a new generation, when it is missing or has any
 * part that fails its check (a torn append after a kill, a damaged file). A table that cannot take a record
 * (closed, broken, full at {@value #MAX_RECORDS} records or {@value #MAX_FILE_BYTES} bytes, a write error) makes
 * the codec write that value as a standard stream.
 *
 * <p><b>Concurrency.</b> Thread-safe. Known numbers come from a {@link ClassValue} and a concurrent map without a
 * lock; recording a new descriptor holds this object's monitor (once per class and directory, ever). The file is
 * made by {@link AtomicFile} with its first record and appended to through {@link RandomAccessFile}, whose writes
 * and sync an interrupt of the caller does not abort (an interrupt while the file is made fails that record only:
 * its value is written as a standard stream, and the next new class makes the file).
 */
final class ClassDescriptors implements Closeable {
  static final String FILE = "class-descriptors";
  static final int MAX_RECORDS = 65_536;
  static final long MAX_FILE_BYTES = 64L << 20;
  private static final Logger LOG = LoggerFactory.getLogger(ClassDescriptors.class);
  private static final byte[] MAGIC = "HCCLSD01".getBytes(StandardCharsets.US_ASCII);
  private static final int HEADER_BYTES = MAGIC.length + Integer.BYTES;
  /** Longest descriptor record read back (a class with thousands of fields stays far below). */
  private static final int MAX_RECORD_BYTES = 1 << 20;

  private final Path file;
  private final int generation;
  /** Appends to the file; null until the first descriptor is recorded (the file is made then). */
  private RandomAccessFile out;
  /** Guarded by this: closed, or a failed append could not be cut back. */
  private boolean refusing;
  private String refusal;
  /** Record bytes and CRCs by number - 1; appended under the monitor, read through a volatile snapshot. */
  private volatile Records records;
  private final ConcurrentHashMap<Key, Integer> numbers = new ConcurrentHashMap<>();
  /** The number of each class written through this table (a class's local descriptor never changes). */
  private final ClassValue<Integer> byClass = new ClassValue<>() {
    @Override
    protected Integer computeValue(Class<?> type) {
      return numberOf(bytesOf(ObjectStreamClass.lookupAny(type)));
    }
  };

  /** The records, immutable: bytes and the CRC a value carries beside the number. */
  private record Records(byte[][] bytes, int[] crcs, long fileBytes) {}

  private ClassDescriptors(Path file, int generation, RandomAccessFile out, Records records) {
    this.file = file;
    this.generation = generation;
    this.out = out;
    this.records = records;
    for (int i = 0; i < records.bytes().length; i++) {
      numbers.putIfAbsent(new Key(records.bytes()[i]), i + 1);
    }
  }

  /**
   * The table of manager directory {@code directory}: the file's, or a new generation (logged) if it is missing
   * or fails its checks.
   *
   * @throws IOException if the file exists but cannot be read (its values must not be dropped for a passing error)
   */
  static ClassDescriptors open(Path directory) throws IOException {
    Path file = directory.resolve(FILE);
    byte[] all;
    try {
      all = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return fresh(file, null);
    }
    List<byte[]> bytes = new ArrayList<>();
    Integer generation = parse(all, bytes);
    if (generation == null) {
      return fresh(file, "it is damaged or was cut short");
    }
    int[] crcs = new int[bytes.size()];
    for (int i = 0; i < crcs.length; i++) {
      crcs[i] = crc(bytes.get(i).length, bytes.get(i));
    }
    RandomAccessFile out = new RandomAccessFile(file.toFile(), "rw");
    return new ClassDescriptors(file, generation, out, new Records(bytes.toArray(new byte[0][]), crcs, all.length));
  }

  /** A new table; its file is made when it records its first descriptor (a manager that never needs one has none). */
  private static ClassDescriptors fresh(Path file, String why) {
    if (why != null) {
      LOG.warn("{}: {}: starting a new table; values stored with the old one read as misses", file, why);
    }
    return new ClassDescriptors(file, new SecureRandom().nextInt(), null, new Records(new byte[0][], new int[0], 0));
  }

  /** The generation of {@code all} with its records added to {@code out}, or null if any part fails its check. */
  private static Integer parse(byte[] all, List<byte[]> out) {
    if (all.length < HEADER_BYTES || !Arrays.equals(Arrays.copyOf(all, MAGIC.length), MAGIC)) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(all);
    int generation = b.getInt(MAGIC.length);
    b.position(HEADER_BYTES);
    while (b.hasRemaining()) {
      if (b.remaining() < 2 * Integer.BYTES) {
        return null;
      }
      int length = b.getInt();
      if (length <= 0 || length > MAX_RECORD_BYTES || b.remaining() < length + Integer.BYTES) {
        return null;
      }
      byte[] record = new byte[length];
      b.get(record);
      if (b.getInt() != crc(length, record)) {
        return null;
      }
      out.add(record);
    }
    return generation;
  }

  /** Deletes the table of manager directory {@code directory} (a private directory's last release). */
  static void delete(Path directory) throws IOException {
    Files.deleteIfExists(directory.resolve(FILE));
    Files.deleteIfExists(directory.resolve(FILE + AtomicFile.TEMP_SUFFIX));
  }

  /** The generation every value written with this table carries. */
  int generation() {
    return generation;
  }

  /**
   * The number of {@code desc}, recorded (written and forced to the device) if it is new.
   *
   * @throws UncheckedIOException if a new descriptor cannot be recorded (the codec then writes a standard stream)
   */
  int numberOf(ObjectStreamClass desc) {
    Class<?> type = desc.forClass();
    return type != null ? byClass.get(type) : numberOf(bytesOf(desc));
  }

  /** The CRC a value carries beside number {@code n} (a number this table handed out). */
  int crcOf(int n) {
    return records.crcs()[n - 1];
  }

  /** The record bytes of number {@code n} if this table has it with CRC {@code crc}, else null. */
  byte[] record(int n, int crc) {
    Records r = records;
    return n >= 1 && n <= r.bytes().length && r.crcs()[n - 1] == crc ? r.bytes()[n - 1] : null;
  }

  private int numberOf(byte[] bytes) {
    Key key = new Key(bytes);
    Integer n = numbers.get(key);
    return n != null ? n : append(key, bytes);
  }

  private synchronized int append(Key key, byte[] bytes) {
    Integer n = numbers.get(key);
    if (n != null) {
      return n;
    }
    Records r = records;
    int crc = crc(bytes.length, bytes);
    long recordBytes = 2L * Integer.BYTES + bytes.length;
    if (refusing || r.bytes().length >= MAX_RECORDS || r.fileBytes() + recordBytes > MAX_FILE_BYTES) {
      throw new UncheckedIOException(new IOException(file + " takes no more class descriptors: " + (refusing
          ? refusal : "full (" + r.bytes().length + " records, " + r.fileBytes() + " bytes)")));
    }
    ByteBuffer record = ByteBuffer.allocate((int) recordBytes).putInt(bytes.length).put(bytes).putInt(crc);
    long length;
    try {
      length = write(record.array(), r.fileBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record a class descriptor in " + file + ": " + e.getMessage(), e);
    }
    byte[][] allBytes = Arrays.copyOf(r.bytes(), r.bytes().length + 1);
    allBytes[allBytes.length - 1] = bytes;
    int[] crcs = Arrays.copyOf(r.crcs(), r.crcs().length + 1);
    crcs[crcs.length - 1] = crc;
    records = new Records(allBytes, crcs, length);
    numbers.put(key, allBytes.length);
    return allBytes.length;
  }

  /**
   * Appends {@code record} at {@code at} (the file's length) and syncs it, making the file first if this table has
   * none yet; returns the new length. On a failure the file is cut back to {@code at}; if that fails too, the table
   * refuses every later record.
   */
  private long write(byte[] record, long at) throws IOException {
    if (out == null) {
      create(record);
      return HEADER_BYTES + record.length;
    }
    try {
      out.seek(at);
      out.write(record);
      out.getFD().sync();
      return at + record.length;
    } catch (IOException e) {
      try {
        out.setLength(at);
        out.getFD().sync();
      } catch (IOException cut) {
        e.addSuppressed(cut);
        refusing = true;
        refusal = "a failed append could not be cut back (" + cut + ")";
      }
      throw e;
    }
  }

  /** Makes the file with this table's generation and {@code firstRecord} ({@link AtomicFile}) and opens it. */
  private void create(byte[] firstRecord) throws IOException {
    AtomicFile.replace(file, ch -> {
      AtomicFile.writeFully(ch, ByteBuffer.allocate(HEADER_BYTES).put(MAGIC).putInt(generation).flip());
      AtomicFile.writeFully(ch, ByteBuffer.wrap(firstRecord));
    });
    out = new RandomAccessFile(file.toFile(), "rw");
  }

  private static byte[] bytesOf(ObjectStreamClass desc) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (ObjectOutputStream o = new ObjectOutputStream(bytes)) {
      o.writeObject(desc);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // into memory: cannot happen
    }
    return bytes.toByteArray();
  }

  private static int crc(int length, byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(ByteBuffer.allocate(Integer.BYTES).putInt(length).flip());
    crc.update(bytes);
    return (int) crc.getValue();
  }

  /** Closes the file; the table then takes no more records (a put after it writes a standard stream). */
  @Override
  public synchronized void close() throws IOException {
    refusing = true;
    refusal = "closed";
    if (out != null) {
      out.close();
    }
  }

  /** Descriptor bytes compared by content. */
  private record Key(byte[] bytes) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }
  }
}
