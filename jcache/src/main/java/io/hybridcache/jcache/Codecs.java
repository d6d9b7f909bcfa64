package io.hybridcache.jcache;

import io.hybridcache.core.api.Codec;
import java.io.ObjectInputFilter;
import java.nio.ByteBuffer;

/**
 * The codecs a JCache cache turns its keys and values into bytes with: fast ones for {@code String},
 * {@code byte[]}, {@code Long} and {@code Integer}, and Java serialization as the fallback, which
 * deserializes only through a JEP 290 {@link ObjectInputFilter}. Every codec here is thread-safe and
 * returns a new object from each decode (store-by-value); each encodes after a reserved head
 * ({@link ReservingCodec}: a put copies its value once).
 *
 * <p>Design note: a cache picks its codec from its {@code HybridCacheConfiguration}, else from the
 * provider properties ({@code cache.NAME.key-codec}), else from its configured key and value types
 * ({@link #forType}); {@code Object} and any other type get the serializing codec.
 */
public final class Codecs {
  /**
   * The default {@code serial-filter}: limits only (graph depth, references, array length, stream bytes), so
   * any serializable class of the application passes (but the deny-list of known gadget classes and the
   * JVM-wide filter, which always apply: {@link SerialFilter}) while a hostile stream cannot exhaust the heap
   * or the stack. Narrow it with {@link ProviderProperties#SERIAL_FILTER} (e.g. {@code com.example.*;java.base/*;!*}):
   * a manager whose cache uses Java serialization without such an allow-list WARNs once.
   */
  public static final String DEFAULT_SERIAL_FILTER = "maxdepth=64;maxrefs=100000;maxarray=16777216;maxbytes=67108864";

  private Codecs() {}

  /** Strings as UTF-8. */
  public static Codec<String> string() {
    return Codec.utf8();
  }

  /** Byte arrays as themselves (decode copies, so the cache's bytes are never handed out). */
  public static Codec<byte[]> bytes() {
    return BytesCodec.INSTANCE;
  }

  /** Longs as 8 big-endian bytes. */
  public static Codec<Long> longs() {
    return LongCodec.INSTANCE;
  }

  /** Integers as 4 big-endian bytes. */
  public static Codec<Integer> integers() {
    return IntCodec.INSTANCE;
  }

  /**
   * Java serialization; decoding resolves classes through {@code loader} and deserializes only what
   * {@code filter}, the JVM-wide filter and the deny-list of known gadget classes allow. A decode that fails
   * (a refused, missing or incompatibly changed class) throws an {@link IllegalStateException} naming the
   * class; a cache reads it as a miss, removes the entry and counts it
   * ({@link HybridCacheStatisticsMXBean#getUndecodableValues()}). An encode checks, while it writes, each class
   * and the limits it can count (array lengths, objects, depth, {@code maxbytes}), so such a value fails there
   * ({@link IllegalArgumentException} naming the class and limit); it never reads the value back.
   */
  public static <T> Codec<T> serializing(ClassLoader loader, ObjectInputFilter filter) {
    return new SerializingCodec<>(loader, SerialFilter.of(filter));
  }

  /** The fast codec for {@code type}, or the serializing one (with {@code filter}) for any other type. */
  public static <T> Codec<T> forType(Class<T> type, ClassLoader loader, ObjectInputFilter filter) {
    return forType(type, loader, SerialFilter.of(filter));
  }

  static <T> Codec<T> forType(Class<T> type, ClassLoader loader, SerialFilter filter) {
    return forType(type, loader, filter, null);
  }

  /** As {@link #forType(Class, ClassLoader, SerialFilter)}, serializing compactly with {@code descriptors} if not null. */
  @SuppressWarnings("unchecked")
  static <T> Codec<T> forType(Class<T> type, ClassLoader loader, SerialFilter filter, ClassDescriptors descriptors) {
    if (type == String.class) {
      return (Codec<T>) string();
    } else if (type == byte[].class) {
      return (Codec<T>) bytes();
    } else if (type == Long.class) {
      return (Codec<T>) longs();
    } else if (type == Integer.class) {
      return (Codec<T>) integers();
    }
    return new SerializingCodec<>(loader, filter, descriptors);
  }

  /**
   * The codec a property names: {@code string}, {@code bytes}, {@code long}, {@code integer},
   * {@code serializable}, or a {@link Codec} class with a public no-argument constructor.
   */
  static <T> Codec<T> named(String name, ClassLoader loader, SerialFilter filter) {
    return named(name, loader, filter, null);
  }

  /** As {@link #named(String, ClassLoader, SerialFilter)}, serializing compactly with {@code descriptors} if not null. */
  @SuppressWarnings("unchecked")
  static <T> Codec<T> named(String name, ClassLoader loader, SerialFilter filter, ClassDescriptors descriptors) {
    switch (name) {
      case "string": return (Codec<T>) string();
      case "bytes": return (Codec<T>) bytes();
      case "long": return (Codec<T>) longs();
      case "integer": return (Codec<T>) integers();
      case "serializable": return new SerializingCodec<>(loader, filter, descriptors);
      default:
        try {
          return (Codec<T>) ContextFirstClassLoader.forName(name, true, loader).getConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
          throw new IllegalArgumentException("codec must be string, bytes, long, integer, serializable or a Codec"
              + " class with a public no-argument constructor, was " + name, e);
        }
    }
  }

  enum BytesCodec implements ReservingCodec<byte[]> {
    INSTANCE;

    @Override
    public byte[] encode(byte[] value, int reserved) {
      return ReservingCodec.behind(value, 0, value.length, reserved);
    }

    @Override
    public byte[] decode(byte[] bytes) {
      return bytes.clone();
    }
  }

  enum LongCodec implements ReservingCodec<Long> {
    INSTANCE;

    @Override
    public byte[] encode(Long value, int reserved) {
      return ByteBuffer.allocate(reserved + Long.BYTES).putLong(reserved, value).array();
    }

    @Override
    public Long decode(byte[] bytes) {
      return ByteBuffer.wrap(bytes).getLong();
    }
  }

  enum IntCodec implements ReservingCodec<Integer> {
    INSTANCE;

    @Override
    public byte[] encode(Integer value, int reserved) {
      return ByteBuffer.allocate(reserved + Integer.BYTES).putInt(reserved, value).array();
    }

    @Override
    public Integer decode(byte[] bytes) {
      return ByteBuffer.wrap(bytes).getInt();
    }
  }

}
