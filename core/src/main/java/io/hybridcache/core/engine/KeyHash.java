package io.hybridcache.core.engine;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.nio.ByteBuffer;

/**
 * The 64-bit key hash the index is keyed by: XXH3-64 with seed 0 (hash4j, which reads bytes through
 * {@code VarHandle}s: no {@code sun.misc.Unsafe}, no JDK internals, so it runs in a JVM without flags and
 * with Unsafe memory access denied). The values are those of the XXH3 reference and of
 * zero-allocation-hashing's {@code xx3()}, which earlier versions used, so checkpoints and segments keep
 * their meaning ({@code KeyHashTest} holds the vectors). Never 0: 0 is the empty marker of
 * {@link HeapIndex}, so it is remapped to 1.
 *
 * <p>Concurrency: stateless but for a per-thread scratch array that a key inside a direct buffer is copied
 * to (hash4j hashes arrays only); keys longer than {@link #SCRATCH_BYTES} get an array of their own.
 */
final class KeyHash {
  private static final Hasher64 XXH3 = Hashing.xxh3_64();
  /** Larger than any key the engine writes in practice (keys are at most 65,535 B, see EntryFormat). */
  static final int SCRATCH_BYTES = 1024;
  private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[SCRATCH_BYTES]);

  private KeyHash() {}

  /** The hash of {@code length} key bytes at {@code offset} of {@code buf} (same value as for a copy). */
  public static long of(ByteBuffer buf, int offset, int length) {
    long h;
    if (buf.hasArray()) {
      h = XXH3.hashBytesToLong(buf.array(), buf.arrayOffset() + offset, length);
    } else {
      byte[] copy = length <= SCRATCH_BYTES ? SCRATCH.get() : new byte[length];
      buf.get(offset, copy, 0, length);
      h = XXH3.hashBytesToLong(copy, 0, length);
    }
    return h == 0 ? 1 : h;
  }

  public static long of(byte[] key) {
    long h = XXH3.hashBytesToLong(key);
    return h == 0 ? 1 : h;
  }
}
