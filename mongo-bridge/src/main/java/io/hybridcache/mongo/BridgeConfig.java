package io.hybridcache.mongo;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable, validated settings of a {@link MongoBridge}; {@link Builder#build()} names a bad field.
 * Thread-safe: immutable.
 *
 * <ul>
 *   <li>{@code ttl} (default none): documents cached by reads and writes expire after it; a
 *       collection may set its own ({@link MongoBridge#collection(com.mongodb.client.MongoCollection,
 *       Duration)}). A TTL bounds how long a write that bypassed the bridge can stay unseen.
 *   <li>{@code maxCachedBytes} (default 0 = whatever fits one flash entry of the cache): documents
 *       whose cache value is larger are served from MongoDB and never cached.
 *   <li>{@code guardStripes} (default 4096, a power of two): lock stripes of the fill guard.
 * </ul>
 */
public final class BridgeConfig {
  private final Duration ttl;
  private final int maxCachedBytes;
  private final int guardStripes;

  private BridgeConfig(Builder b) {
    this.ttl = b.ttl;
    this.maxCachedBytes = b.maxCachedBytes;
    this.guardStripes = b.guardStripes;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static BridgeConfig defaults() {
    return builder().build();
  }

  /** The default TTL, or null for none. */
  public Duration ttl() {
    return ttl;
  }

  public int maxCachedBytes() {
    return maxCachedBytes;
  }

  public int guardStripes() {
    return guardStripes;
  }

  @Override
  public String toString() {
    return "BridgeConfig[ttl=" + ttl + ", maxCachedBytes=" + maxCachedBytes + ", guardStripes=" + guardStripes + "]";
  }

  /** Not thread-safe. */
  public static final class Builder {
    private Duration ttl;
    private int maxCachedBytes;
    private int guardStripes = 4096;

    private Builder() {}

    /** Null for none. */
    public Builder ttl(Duration v) {
      ttl = v;
      return this;
    }

    public Builder maxCachedBytes(int v) {
      maxCachedBytes = v;
      return this;
    }

    public Builder guardStripes(int v) {
      guardStripes = v;
      return this;
    }

    public BridgeConfig build() {
      checkTtl("ttl", ttl);
      if (maxCachedBytes < 0) {
        throw new IllegalArgumentException("maxCachedBytes must be >= 0 (0 = what fits a flash entry), was "
            + maxCachedBytes);
      }
      if (guardStripes < 1 || guardStripes > (1 << 24) || Integer.bitCount(guardStripes) != 1) {
        throw new IllegalArgumentException("guardStripes must be a power of two in [1, 2^24], was " + guardStripes);
      }
      return new BridgeConfig(this);
    }
  }

  static Duration checkTtl(String field, Duration ttl) {
    if (ttl != null && (ttl.isNegative() || ttl.isZero())) {
      throw new IllegalArgumentException(field + " must be positive or null (none), was " + ttl);
    }
    return ttl;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BridgeConfig c && Objects.equals(ttl, c.ttl) && maxCachedBytes == c.maxCachedBytes
        && guardStripes == c.guardStripes;
  }

  @Override
  public int hashCode() {
    return Objects.hash(ttl, maxCachedBytes, guardStripes);
  }
}
