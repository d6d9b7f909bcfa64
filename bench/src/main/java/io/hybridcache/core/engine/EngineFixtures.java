package io.hybridcache.core.engine;

/**
 * Set-up helpers for the benchmarks of engine internals. They live in the engine's package (on the
 * class path, as Caffeine's JMH sources do) so they reach package-private classes without the library
 * making them public.
 */
final class EngineFixtures {
  private EngineFixtures() {}

  /** {@link KeyHash} of each key, as the flash index is keyed. */
  static long[] hashes(byte[][] keys) {
    long[] hashes = new long[keys.length];
    for (int i = 0; i < keys.length; i++) {
      hashes[i] = KeyHash.of(keys[i]);
    }
    return hashes;
  }
}
