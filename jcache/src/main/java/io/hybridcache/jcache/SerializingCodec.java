package io.hybridcache.jcache;

import io.hybridcache.core.api.Codec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * Java serialization as a {@link Codec}: the fallback for types without a fast codec. Thread-safe.
 *
 * <p>Design note (security): a cache's files are written 0600 by the process that owns the cache, so
 * only that user (or root) can plant a stream; still, every decode runs through {@code filter}
 * (JEP 290), so a planted stream meets the limits of {@link Codecs#DEFAULT_SERIAL_FILTER} or whatever
 * class allow-list the user set, and classes resolve only through the manager's class loader.
 */
final class SerializingCodec<T> implements Codec<T> {
  private final ClassLoader loader;
  private final ObjectInputFilter filter;

  SerializingCodec(ClassLoader loader, ObjectInputFilter filter) {
    this.loader = Objects.requireNonNull(loader, "loader");
    this.filter = Objects.requireNonNull(filter, "filter");
  }

  @Override
  public byte[] encode(T value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot serialize a " + value.getClass().getName()
          + " (store-by-value needs Serializable keys and values, or a codec)", e);
    }
    return bytes.toByteArray();
  }

  @Override
  @SuppressWarnings("unchecked")
  public T decode(byte[] bytes) {
    try (ObjectInputStream in = new LoaderInputStream(new ByteArrayInputStream(bytes), loader)) {
      in.setObjectInputFilter(filter);
      return (T) in.readObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot deserialize a cached value", e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("cannot deserialize a cached value", e);
    }
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
        return Class.forName(desc.getName(), false, loader);
      } catch (ClassNotFoundException e) {
        return super.resolveClass(desc);
      }
    }
  }
}
