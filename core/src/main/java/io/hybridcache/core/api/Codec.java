package io.hybridcache.core.api;

import java.nio.charset.StandardCharsets;

/**
 * Converts a typed key or value to and from bytes. Implementations must be thread-safe. A value codec
 * for rows stored without repeated column names: {@link io.hybridcache.core.catalog.RowCodec}.
 */
public interface Codec<T> {
  byte[] encode(T value);

  T decode(byte[] bytes);

  /** Strings as UTF-8 (for keys). */
  static Codec<String> utf8() {
    return Utf8Codec.INSTANCE;
  }

  /** The {@link #utf8()} codec. */
  enum Utf8Codec implements Codec<String> {
    INSTANCE;

    @Override
    public byte[] encode(String value) {
      return value.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String decode(byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }
}
