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
  private final ClassLoader loader;
  private final SerialFilter filter;

  SerializingCodec(ClassLoader loader, SerialFilter filter) {
    this.loader = Objects.requireNonNull(loader, "loader");
    this.filter = Objects.requireNonNull(filter, "filter");
  }

  /** {@inheritDoc} The stream is written behind the head, in the buffer it grows in: no copy of it is made there. */
  @Override
  public byte[] encode(T value, int reserved) {
    Class<?> type = value.getClass();
    // every class written is judged as it is written (CheckingOutputStream.annotateClass): what a writeReplace
    // puts in the stream (List.of's CollSer, a lambda's SerializedLambda), not the value's own class
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + reserved);
    for (int i = 0; i < reserved; i++) {
      bytes.write(0);
    }
    try (ObjectOutputStream out = new CheckingOutputStream(bytes, filter, type)) {
      out.writeObject(value);
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
    return bytes.toByteArray();
  }

  @Override
  @SuppressWarnings("unchecked")
  public T decode(byte[] bytes) {
    SerialFilter.Stream stream = filter.stream();
    try (ObjectInputStream in = new LoaderInputStream(new ByteArrayInputStream(bytes), loader)) {
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

  /** Resolves classes through the cache manager's class loader. */
  private static final class LoaderInputStream extends ObjectInputStream {
    private final ClassLoader loader;

    LoaderInputStream(InputStream in, ClassLoader loader) throws IOException {
      super(in);
      this.loader = loader;
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
