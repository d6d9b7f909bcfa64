package io.hybridcache.jcache;

import io.hybridcache.core.api.KeyGroups;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The engine's key groups for per-cache budgets ({@code cache.NAME.dram-bytes}, {@code cache.NAME.flash-bytes}):
 * a group is one epoch of one cache's namespace, {@code id << 32 | epoch} from the key's prefix
 * ({@link Namespace#idAndEpoch}), so a {@code clear()} (a new epoch) starts the cache's count from zero while
 * what the earlier epoch left is counted to no cache and goes as the tiers evict and reclaim it. The caps are
 * the namespace's, set when the cache is created ({@link #cap}): its current epoch has them; an earlier epoch of
 * a capped cache (unreadable) keeps the DRAM cap but has a flash cap of 0, so its DRAM evictions are refused
 * (dropped, without a reclaim: see {@link KeyGroups#flashCap}) and reclaim does not reinsert its entries: after
 * any number of clears the cache's entries take at most its one flash cap (plus what the earlier epochs had on
 * flash at their clear, until reclaimed). Every namespace is counted (with caps or
 * not: a warm open recounts before any cache is created), only when the manager sets some budget at all.
 *
 * <p>Thread-safe: caps in a concurrent map. Format: nothing stored; a warm open recounts from the key prefixes
 * segment summaries keep ({@code evictionKeyBytes} 8 holds both varints of an id below 2^14 and an epoch below
 * 2^21; a longer prefix is no group).
 */
final class NamespaceGroups implements KeyGroups {
  private final ConcurrentHashMap<Integer, Caps> caps = new ConcurrentHashMap<>();

  /** A namespace's caps (its current epoch's, read from {@code ns} at each call). */
  private record Caps(Namespace ns, long dramBytes, long flashBytes) { }

  /** Caps namespace {@code ns} (each {@link Long#MAX_VALUE} for none); both none: not counted. */
  void cap(Namespace ns, long dramBytes, long flashBytes) {
    if (dramBytes == Long.MAX_VALUE && flashBytes == Long.MAX_VALUE) {
      caps.remove(ns.id());
    } else {
      caps.put(ns.id(), new Caps(ns, dramBytes, flashBytes));
    }
  }

  /** The group of the current epoch of {@code ns}. */
  static long groupOf(Namespace ns) {
    return (long) ns.id() << 32 | (ns.epoch() & 0xFFFFFFFFL);
  }

  @Override
  public long groupOf(byte[] key) {
    int[] ns = Namespace.idAndEpoch(key);
    return ns == null ? NONE : (long) ns[0] << 32 | (ns[1] & 0xFFFFFFFFL);
  }

  @Override
  public long dramCap(long group) {
    Caps c = caps.get((int) (group >>> 32));
    return c == null ? Long.MAX_VALUE : c.dramBytes();
  }

  /** The namespace's flash cap for its current epoch; 0 for an earlier epoch of a capped namespace. */
  @Override
  public long flashCap(long group) {
    Caps c = caps.get((int) (group >>> 32));
    if (c == null) {
      return Long.MAX_VALUE;
    }
    // an earlier epoch gets 0; a later one is the current epoch being published (the prefix goes out before the
    // epoch field), so it keeps the cap
    return (int) group >= c.ns().epoch() ? c.flashBytes() : 0;
  }
}
