package io.hybridcache.core.api;

/** Converts a typed key or value to and from bytes. Implementations must be thread-safe. */
public interface Codec<T> {
  byte[] encode(T value);

  T decode(byte[] bytes);
}
