package io.hybridcache.jcache;

import io.hybridcache.core.device.FileModes;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * descriptor a value's stream needs is written once, here, and the stream carries its number instead (Ehcache
 * 3's {@code CompactJavaSerializer} does the same), so a small serializable object is not several times its data
 * in DRAM and on flash.
 *
 * <p><b>Format</b> of {@value #FILE}: the magic {@code HCCLSD01} and a random 32-bit generation, then one record
 * per descriptor, numbered from 1 in file order: length (int), the descriptor as an {@link ObjectOutputStream}
 * writes an {@link ObjectStreamClass}, and the CRC32C of length and bytes (int); big-endian.
 *
 * <p><b>Never a wrong class.</b> A record is appended and forced to the device before its number is returned,
 * so no stored value can name a number the file does not keep. Every value carries the generation
 * ({@link SerializingCodec}): a value of another generation is undecodable (a counted miss). The file is
 * started anew, with a new generation, when it is missing, unreadable, or has a record that fails its check
 * (a torn append after a kill, a damaged file): numbers are then never reused for another class under the same
 * generation. A new table makes its file when it records its first descriptor (a manager that never serializes
 * an object has none); a value written before that (a serialized {@code String}, which needs no descriptor) is a
 * miss after a restart that finds no file.
 *
 * <p><b>Concurrency.</b> Thread-safe. Numbers of known descriptors and read descriptors come from concurrent
 * maps without a lock; appending a new one holds this object's monitor (once per class and directory, ever).
 * Descriptors are read back lazily, through the class loader and filter of the stream that needs them.
 */
final class ClassDescriptors implements Closeable {
  static final String FILE = "class-descriptors";
  private static final Logger LOG = LoggerFactory.getLogger(ClassDescriptors.class);
  private static final byte[] MAGIC = "HCCLSD01".getBytes(StandardCharsets.US_ASCII);
  private static final int HEADER_BYTES = MAGIC.length + Integer.BYTES;
  /** Longest descriptor record read back (a class with thousands of fields stays far below). */
  private static final int MAX_RECORD_BYTES = 1 << 20;

  private final Path file;
  private final int generation;
  /** Appends to the file; null until the first descriptor is recorded (the file is made then). */
  private FileChannel channel;
  /** Record bytes by number - 1; appended under the monitor, read through a volatile snapshot. */
  private volatile byte[][] records;
  private final ConcurrentHashMap<Key, Integer> numbers = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Integer, ObjectStreamClass> read = new ConcurrentHashMap<>();
  /** The number of each class written through this table (a class's local descriptor never changes). */
  private final ClassValue<Integer> byClass = new ClassValue<>() {
    @Override
    protected Integer computeValue(Class<?> type) {
      return numberOf(bytesOf(ObjectStreamClass.lookupAny(type)));
    }
  };

  private ClassDescriptors(Path file, int generation, FileChannel channel, byte[][] records) {
    this.file = file;
    this.generation = generation;
    this.channel = channel;
    this.records = records;
    for (int i = 0; i < records.length; i++) {
      numbers.putIfAbsent(new Key(records[i]), i + 1);
    }
  }

  /** The table of manager directory {@code directory}: the file's, or a new generation (logged) if it cannot be used. */
  static ClassDescriptors open(Path directory) throws IOException {
    Path file = directory.resolve(FILE);
    List<byte[]> records = new ArrayList<>();
    Integer generation = null;
    String why = null;
    try {
      byte[] all = Files.readAllBytes(file);
      generation = parse(all, records);
      why = generation == null ? "it is damaged or was cut short" : null;
    } catch (NoSuchFileException e) {
      why = ""; // the first open: nothing to say
    }
    if (why != null) {
      if (!why.isEmpty()) {
        LOG.warn("{}: {}: starting a new table; values stored with the old one read as misses", file, why);
      }
      // the file is made (anew) when the first descriptor is recorded: a manager that never serializes has none
      return new ClassDescriptors(file, new SecureRandom().nextInt(), null, new byte[0][]);
    }
    FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    return new ClassDescriptors(file, generation, channel, records.toArray(new byte[0][]));
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

  /**
   * Makes the file with this table's generation and {@code firstRecord} (temp file, force, atomic rename over
   * whatever was there, directory force) and opens it for appends.
   */
  private void create(ByteBuffer firstRecord) throws IOException {
    Path temp = file.resolveSibling(FILE + ".new");
    Files.deleteIfExists(temp);
    try (FileChannel c = FileChannel.open(temp, java.util.Set.of(StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE), FileModes.attributes(FileModes.inDirectory(file.getParent())))) {
      ByteBuffer head = ByteBuffer.allocate(HEADER_BYTES).put(MAGIC).putInt(generation).flip();
      while (head.hasRemaining() || firstRecord.hasRemaining()) {
        c.write(new ByteBuffer[] {head, firstRecord});
      }
      c.force(true);
    }
    Files.move(temp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException e) {
      // some file systems cannot sync a directory: the rename is still atomic
    }
    channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
  }

  /** Deletes the table of manager directory {@code directory} (a private directory's last release). */
  static void delete(Path directory) throws IOException {
    Files.deleteIfExists(directory.resolve(FILE));
    Files.deleteIfExists(directory.resolve(FILE + ".new"));
  }

  /** The generation every value written with this table carries. */
  int generation() {
    return generation;
  }

  /**
   * The number of {@code desc}, appended (and forced to the device) if it is new.
   *
   * @throws UncheckedIOException if a new descriptor cannot be written (the put fails; nothing is stored)
   */
  int numberOf(ObjectStreamClass desc) {
    Class<?> type = desc.forClass();
    return type != null ? byClass.get(type) : numberOf(bytesOf(desc));
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
    ByteBuffer record = ByteBuffer.allocate(2 * Integer.BYTES + bytes.length)
        .putInt(bytes.length).put(bytes).putInt(crc(bytes.length, bytes)).flip();
    try {
      if (channel == null) {
        create(record);
      } else {
        while (record.hasRemaining()) {
          channel.write(record);
        }
        channel.force(false);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record a class descriptor in " + file + ": " + e.getMessage(), e);
    }
    byte[][] now = Arrays.copyOf(records, records.length + 1);
    now[now.length - 1] = bytes;
    records = now;
    numbers.put(key, now.length);
    return now.length;
  }

  /**
   * Descriptor {@code number}, read back through {@code in} (its loader and filter resolve the class), or an
   * {@link java.io.InvalidClassException} if this table has no such number.
   */
  ObjectStreamClass descriptor(int number, ObjectReader in) throws IOException, ClassNotFoundException {
    ObjectStreamClass known = read.get(number);
    if (known != null) {
      return known;
    }
    byte[][] now = records;
    if (number < 1 || number > now.length) {
      throw new java.io.InvalidClassException("class descriptor " + number + " is not in " + file
          + " (" + now.length + " recorded)");
    }
    ObjectStreamClass desc = (ObjectStreamClass) in.read(new ByteArrayInputStream(now[number - 1])).readObject();
    read.putIfAbsent(number, desc);
    return desc;
  }

  /** Opens an object stream of the reader's kind (class loader, filter) over a descriptor's bytes. */
  interface ObjectReader {
    ObjectInputStream read(ByteArrayInputStream bytes) throws IOException;
  }

  private static byte[] bytesOf(ObjectStreamClass desc) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (ObjectOutputStream o = new ObjectOutputStream(out)) {
      o.writeObject(desc);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // into memory: cannot happen
    }
    return out.toByteArray();
  }

  private static int crc(int length, byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(ByteBuffer.allocate(Integer.BYTES).putInt(length).flip());
    crc.update(bytes);
    return (int) crc.getValue();
  }

  @Override
  public synchronized void close() throws IOException {
    if (channel != null) {
      channel.close();
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
