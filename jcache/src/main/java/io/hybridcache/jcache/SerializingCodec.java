package io.hybridcache.jcache;

import io.hybridcache.core.api.Codec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Java serialization as a {@link Codec}: the fallback for types without a fast codec. Thread-safe.
 *
 * <p>Design note (security): a cache's files are written 0600 by the process that owns the cache, so
 * only that user (or root) can plant a stream; still, every decode runs through the manager's
 * {@link SerialFilter} (JEP 290: the deny-list of gadget classes, {@code serial-filter}, the JVM-wide
 * filter), and classes resolve only through the manager's class loader.
 *
 * <p>Design note (failures): {@link #encode} never reads anything back (no user readObject runs on a put, and a
 * key is never deserialized to be looked up): it checks while writing ({@link CheckingOutputStream}) each
 * class against the filter (its verdict cached per class), array lengths, the object count and depth, and the
 * encoded length against {@code maxbytes}; a value that fails throws {@link Unstorable} (an
 * {@link IllegalArgumentException} naming the class and the pattern or limit). What cannot be known while
 * writing (a class the manager's loader cannot see, back references and nulls counted against
 * {@code maxrefs}) is found at the read: {@link #decode} throws {@link Undecodable} naming the class, which the
 * cache reads as a miss, counted and removed.
 */
final class SerializingCodec<T> implements ReservingCodec<T> {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SerializingCodec.class);
  /** First byte of a compact stream (a standard one starts with 0xAC 0xED). */
  static final byte COMPACT = (byte) 0xC5;
  /** The marker and the table's generation. */
  static final int COMPACT_HEAD_BYTES = 1 + Integer.BYTES;
  /** {@code ObjectStreamConstants.STREAM_MAGIC} and {@code STREAM_VERSION}, as a standard stream starts. */
  private static final byte[] STANDARD_HEAD = {(byte) 0xAC, (byte) 0xED, 0x00, 0x05};
  private final ClassLoader loader;
  private final SerialFilter filter;
  private final ClassDescriptors descriptors;
  /** Descriptors this codec read back, by number (through its own loader: another manager's never pins it). */
  private final java.util.concurrent.ConcurrentHashMap<Integer, ObjectStreamClass> resolved =
      new java.util.concurrent.ConcurrentHashMap<>();

  SerializingCodec(ClassLoader loader, SerialFilter filter) {
    this(loader, filter, null);
  }

  /**
   * A codec that writes compact streams with {@code descriptors} (null: standard streams, as
   * {@code Codecs.serializing} makes). It reads both kinds: standard streams (written before the manager
   * had a table, or by a codec without one) and compact streams of {@code descriptors}' generation.
   */
  SerializingCodec(ClassLoader loader, SerialFilter filter, ClassDescriptors descriptors) {
    this.loader = Objects.requireNonNull(loader, "loader");
    this.filter = Objects.requireNonNull(filter, "filter");
    this.descriptors = descriptors;
  }

  /** {@inheritDoc} The stream is written behind the head, in the buffer it grows in: no copy of it is made there. */
  @Override
  public byte[] encode(T value, int reserved) {
    if (descriptors != null) {
      try {
        return encode(value, reserved, descriptors);
      } catch (NoNumber e) {
        LOG.debug("a value of {} written as a standard stream: {}", value.getClass().getName(), e.getMessage());
      }
    }
    return encode(value, reserved, null);
  }

  /** {@code value} as a compact stream with {@code table}, or a standard one if it is null. */
  private byte[] encode(T value, int reserved, ClassDescriptors table) {
    Class<?> type = value.getClass();
    // every class written is judged as it is written (CheckingOutputStream.annotateClass): what a writeReplace
    // puts in the stream (List.of's CollSer, a lambda's SerializedLambda), not the value's own class
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + reserved);
    for (int i = 0; i < reserved; i++) {
      bytes.write(0);
    }
    if (table != null) {
      bytes.write(COMPACT);
      int g = table.generation();
      bytes.write(g >>> 24);
      bytes.write(g >>> 16);
      bytes.write(g >>> 8);
      bytes.write(g);
    }
    boolean numbered;
    try (ObjectOutputStream out = table != null ? new CompactOutputStream(bytes, filter, type, table)
        : new CheckingOutputStream(bytes, filter, type)) {
      out.writeObject(value);
      numbered = out instanceof CompactOutputStream c && c.numbered;
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot serialize a " + type.getName()
          + " (store-by-value needs Serializable keys and values, or a codec)", e);
    }
    int length = bytes.size() - reserved;
    if (length > filter.limit("maxbytes")) {
      String refusal = filter.refusal(type, -1, 1, 1, length);
      throw new Unstorable(type.getName(), refusal != null ? refusal
          : "a stream of " + length + " bytes is over maxbytes=" + filter.limit("maxbytes"));
    }
    return table != null && !numbered ? standard(bytes.toByteArray(), reserved) : bytes.toByteArray();
  }

  /**
   * A compact stream that names no descriptor (a {@code String}, a back reference, null) as the standard stream
   * it equals but for the head: it then needs no table, so a restart that finds none still reads it.
   */
  private static byte[] standard(byte[] compact, int reserved) {
    int body = compact.length - reserved - COMPACT_HEAD_BYTES;
    byte[] out = new byte[reserved + STANDARD_HEAD.length + body];
    System.arraycopy(STANDARD_HEAD, 0, out, reserved, STANDARD_HEAD.length);
    System.arraycopy(compact, reserved + COMPACT_HEAD_BYTES, out, reserved + STANDARD_HEAD.length, body);
    return out;
  }

  @Override
  @SuppressWarnings("unchecked")
  public T decode(byte[] bytes) {
    SerialFilter.Stream stream = filter.stream();
    boolean compact = bytes.length > 0 && bytes[0] == COMPACT;
    if (compact && (descriptors == null || bytes.length < COMPACT_HEAD_BYTES
        || ByteBuffer.wrap(bytes, 1, Integer.BYTES).getInt() != descriptors.generation())) {
      throw new Undecodable("(unknown)", "a compact stream of another class-descriptor table than "
          + (descriptors == null ? "none (this codec writes standard streams)" : "this manager directory's "
          + ClassDescriptors.FILE + " (generation " + descriptors.generation() + ")"), null);
    }
    try (ObjectInputStream in = compact
        ? new CompactInputStream(new ByteArrayInputStream(bytes, COMPACT_HEAD_BYTES,
            bytes.length - COMPACT_HEAD_BYTES), loader, descriptors, filter, resolved)
        : new LoaderInputStream(new ByteArrayInputStream(bytes), loader)) {
      in.setObjectInputFilter(stream);
      return (T) in.readObject();
    } catch (IOException | ClassNotFoundException | RuntimeException | LinkageError e) {
      String refusal = stream.refusal();
      String className = refusal != null ? stream.refusedClass() : classOf(e, stream.refusedClass());
      throw new Undecodable(className, refusal != null ? refusal
          : "class " + className + " does not read back (changed incompatibly, moved or gone?): " + e, e);
    }
  }

  private static String classOf(Throwable e, String lastRead) {
    if (e instanceof InvalidClassException ice && ice.classname != null) {
      return ice.classname; // changed incompatibly (serialVersionUID, fields)
    }
    if (e instanceof ClassNotFoundException) {
      return e.getMessage(); // moved or removed
    }
    return lastRead != null ? lastRead : "(unknown)";
  }

  /**
   * A {@link CheckingOutputStream} that writes no stream header and, for each class descriptor, its number in
   * the manager's {@link ClassDescriptors} (recorded there first if new).
   */
  private static final class CompactOutputStream extends CheckingOutputStream {
    private final ClassDescriptors descriptors;
    /** Whether a descriptor was written (by number): else the stream is a standard one but for its head. */
    private boolean numbered;

    CompactOutputStream(java.io.OutputStream out, SerialFilter filter, Class<?> root, ClassDescriptors descriptors)
        throws IOException {
      super(out, filter, root);
      this.descriptors = descriptors;
    }

    @Override
    protected void writeStreamHeader() {
      // none: the compact head (marker, generation) stands for it
    }

    @Override
    protected void writeClassDescriptor(ObjectStreamClass desc) throws IOException {
      check(desc.forClass()); // before the table records it: a refused class never enters the file
      int n;
      try {
        n = descriptors.numberOf(desc);
      } catch (java.io.UncheckedIOException e) {
        throw new NoNumber(e.getCause().getMessage());
      }
      writeInt(n);
      writeInt(descriptors.crcOf(n));
      numbered = true;
    }
  }

  /** A descriptor the table could not record: the value is written as a standard stream instead. */
  private static final class NoNumber extends RuntimeException {
    NoNumber(String message) {
      super(message, null, false, false);
    }
  }

  /** Reads what {@link CompactOutputStream} wrote: descriptors by number, through the manager's loader and filter. */
  private static final class CompactInputStream extends LoaderInputStream {
    private final ClassDescriptors descriptors;
    private final SerialFilter filter;

    private final java.util.Map<Integer, ObjectStreamClass> resolved;

    CompactInputStream(InputStream in, ClassLoader loader, ClassDescriptors descriptors, SerialFilter filter,
        java.util.Map<Integer, ObjectStreamClass> resolved) throws IOException {
      super(in, loader);
      this.descriptors = descriptors;
      this.filter = filter;
      this.resolved = resolved;
    }

    @Override
    protected void readStreamHeader() {
      // none: see CompactOutputStream
    }

    @Override
    protected ObjectStreamClass readClassDescriptor() throws IOException, ClassNotFoundException {
      int n = readInt();
      int crc = readInt();
      byte[] record = descriptors.record(n, crc);
      if (record == null) { // not in this table, or another class under that number (an older copy of the file)
        throw new InvalidClassException("class descriptor " + n + " (CRC " + Integer.toHexString(crc)
            + ") is not in " + ClassDescriptors.FILE);
      }
      ObjectStreamClass known = resolved.get(n);
      if (known != null) {
        return known;
      }
      ObjectInputStream d = new LoaderInputStream(new ByteArrayInputStream(record), loader());
      d.setObjectInputFilter(filter.stream());
      ObjectStreamClass desc = (ObjectStreamClass) d.readObject();
      resolved.putIfAbsent(n, desc);
      return desc;
    }
  }

  /** Resolves classes through the cache manager's class loader. */
  private static class LoaderInputStream extends ObjectInputStream {
    private final ClassLoader loader;

    LoaderInputStream(InputStream in, ClassLoader loader) throws IOException {
      super(in);
      this.loader = loader;
    }

    final ClassLoader loader() {
      return loader;
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
      try {
        return ContextFirstClassLoader.forName(desc.getName(), false, loader);
      } catch (ClassNotFoundException e) {
        return super.resolveClass(desc);
      }
    }
  }
}
