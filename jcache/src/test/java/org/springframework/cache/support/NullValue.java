package org.springframework.cache.support;

import java.io.Serializable;

/**
 * A stand-in for Spring's {@code NullValue} (Spring is not on this module's class path): what Spring's
 * {@code JCacheCache} puts for a {@code null} result when the cache allows nulls, a serializable singleton.
 */
public final class NullValue implements Serializable {
  public static final Object INSTANCE = new NullValue();
  private static final long serialVersionUID = 1L;

  private NullValue() {}

  private Object readResolve() {
    return INSTANCE;
  }
}
