package io.hybridcache.core.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiFunction;

/**
 * The DRAM tier: Caffeine (W-TinyLFU) bounded by bytes, each entry weighing key + value +
 * {@link DramEntry#OVERHEAD_BYTES}, with the deadlines of entries that have a TTL kept apart
 * ({@link DramExpiry}), not in Caffeine's timer wheel.
 *
 * <p>Thread-safe (Caffeine). Concurrency: eviction runs on the calling thread (a same-thread executor),
 * and the eviction listener runs inside the atomic removal of the entry, so it is ordered with any
 * {@code compute} on the same key: the engine relies on this to keep a key's DRAM and flash versions
 * in order. The listener receives every entry evicted for size (dirty ones go to flash, clean ones are
 * still there; one whose TTL has passed is told as expired) or swept as expired. Every change of an entry
 * goes through {@link #compute}, {@link #computeIfPresent} or {@link #remove}, which keep the deadlines
 * in step inside the same atomic change; {@link #map} is for reads and iteration only.
 *
 * <p>Reclaim of expired entries: a change through {@link #compute} (a put, a load, a promotion of a flash
 * hit) that finds a deadline passed sweeps up to {@link #SWEEP_BATCH} of them on its own thread, after its
 * change (never inside it), as Caffeine's maintenance did; so do a read that found an expired entry (a miss:
 * {@link DramEntry#expired}) and {@link #cleanUp}. A DRAM hit never sweeps.
 *
 * <p>With key groups ({@link GroupBytes}), the same changes are also counted per group by {@link DramGroups}
 * (which, for a group over its DRAM cap, follows them with evictions of the group's oldest entries), and
 * Caffeine's eviction listener counts what it evicts. Nothing else may change {@link #map()}.
 */
final class DramTier {
  /** Deadlines one write sweeps at most: a bounded cost on the writer, the rest for the next write. */
  static final int SWEEP_BATCH = 64;

  private final Cache<ByteKey, DramEntry> cache;
  private final ConcurrentMap<ByteKey, DramEntry> map;
  private final DramExpiry expiry = new DramExpiry();
  private final Evictions evictions;
  private final DramGroups groups; // null: no key groups, nothing counted

  /** Told of an entry DRAM evicted, inside the atomic removal of its key. */
  @FunctionalInterface
  interface Evictions {
    void evicted(ByteKey key, DramEntry entry, boolean expired);
  }

  public DramTier(long maxBytes, Evictions evictions) {
    this(maxBytes, evictions, null);
  }

  DramTier(long maxBytes, Evictions evictions, GroupBytes groups) {
    this.evictions = evictions;
    this.cache = Caffeine.newBuilder()
        .maximumWeight(maxBytes)
        .weigher((ByteKey k, DramEntry v) -> weigh(k.bytes().length, v.value().length))
        .executor(Runnable::run)
        .evictionListener(this::evicted)
        .build();
    this.map = cache.asMap();
    this.groups = groups == null ? null : new DramGroups(cache, groups, evictions, expiry::untrack);
  }

  /** Caffeine's eviction listener: inside the atomic removal of {@code k}. */
  private void evicted(ByteKey k, DramEntry v, RemovalCause cause) {
    if (v != null && groups != null) {
      groups.evicted(k, v);
    }
    if (v != null && cause == RemovalCause.SIZE) {
      expiry.untrack(v);
      evictions.evicted(k, v, v.expiredNow());
    }
  }

  public DramEntry get(ByteKey key) {
    return cache.getIfPresent(key);
  }

  /** The live map, for reads and iteration: every change goes through the methods below. */
  public ConcurrentMap<ByteKey, DramEntry> map() {
    return map;
  }

  /**
   * The map's {@code compute} (atomic with eviction of the same key), keeping the key's deadline in step:
   * the entry {@code f} replaces is forgotten and the one it installs recorded, inside the same change.
   */
  public DramEntry compute(ByteKey key, BiFunction<ByteKey, DramEntry, DramEntry> f) {
    return compute(key, f, null);
  }

  /**
   * As {@link #compute(ByteKey, BiFunction)}; {@code expiredSeen[0]}, if given, is set before {@code f} runs when the
   * key's entry was found expired (then {@code f} sees null: a flash copy behind it is that version or older). The
   * expired entry is told ({@link #expiredOut}) after {@code f} returns: if {@code f} throws, the change is undone
   * and the entry stays with its deadline, to be told once by whatever takes it out next.
   */
  public DramEntry compute(ByteKey key, BiFunction<ByteKey, DramEntry, DramEntry> f, boolean[] expiredSeen) {
    BiFunction<ByteKey, DramEntry, DramEntry> fn = (k, old) -> {
      boolean expired = old != null && old.expiredNow();
      if (expired && expiredSeen != null) {
        expiredSeen[0] = true;
      }
      DramEntry live = expired ? null : old;
      DramEntry next = f.apply(k, live);
      if (expired) { // told only once f returned: a change that throws leaves the entry, told later, once
        expiredOut(k, old);
      }
      return tracked(k, live, next);
    };
    DramEntry after = groups == null ? map.compute(key, fn) : groups.change(key, fn, map::compute);
    sweepIfDue();
    return after;
  }

  /** As {@link #compute}, for a key DRAM holds (live: an expired entry is told and taken out, {@code f} not run). */
  public DramEntry computeIfPresent(ByteKey key, BiFunction<ByteKey, DramEntry, DramEntry> f) {
    BiFunction<ByteKey, DramEntry, DramEntry> fn = (k, old) -> old.expiredNow() ? expiredOut(k, old)
        : tracked(k, old, f.apply(k, old));
    return groups == null ? map.computeIfPresent(key, fn) : groups.change(key, fn, map::computeIfPresent);
  }

  /** Removes {@code key}'s entry if it is {@code entry}. */
  public void remove(ByteKey key, DramEntry entry) {
    computeIfPresent(key, (k, cur) -> cur == entry ? null : cur);
  }

  /** Tests: see {@link DramGroups#beforeCapEviction}. */
  void beforeCapEviction(java.util.function.Consumer<ByteKey> hook) {
    groups.beforeCapEviction(hook);
  }

  /**
   * Tells {@code old}, found expired inside its key's change, as {@code EXPIRED} and forgets its deadline; returns
   * null: the change goes on as if DRAM held nothing for the key (as Caffeine's own expiry made a compute see it),
   * so a remove does not report an expired entry as held, and a put over it does not silently replace it.
   */
  private DramEntry expiredOut(ByteKey key, DramEntry old) {
    expiry.untrack(old);
    evictions.evicted(key, old, true);
    return null;
  }

  private DramEntry tracked(ByteKey key, DramEntry old, DramEntry now) {
    if (now != old) {
      expiry.untrack(old);
      expiry.track(key, now);
    }
    return now;
  }

  /**
   * Sweeps a batch of passed deadlines if any: after a write, and after a read that found an entry expired
   * (so a read-only workload's expired entries leave too); never inside a change of the map.
   */
  void sweepIfDue() {
    if (!expiry.isEmpty()) {
      long now = System.currentTimeMillis();
      if (expiry.anyDue(now)) {
        expiry.sweep(now, SWEEP_BATCH, this::expire);
      }
    }
  }

  /**
   * A read found {@code found} (the entry of {@code key}) expired: takes that version out now, telling the
   * listener, then sweeps a batch of other passed deadlines.
   */
  void expiredSeen(ByteKey key, DramEntry found) {
    long now = System.currentTimeMillis();
    expire(key, found.sequence(), now);
    sweepIfDue();
  }

  /** Removes {@code key}'s entry if it is still version {@code sequence} and expired, telling the listener. */
  private void expire(ByteKey key, long sequence, long nowMillis) {
    map.computeIfPresent(key, (k, cur) -> {
      if (cur.sequence() != sequence || !cur.expired(nowMillis)) {
        return cur;
      }
      if (groups != null) {
        groups.evicted(k, cur);
      }
      expiry.untrack(cur); // the sweep forgot it already; a read's direct expiry did not
      evictions.evicted(k, cur, true); // inside the atomic removal, as Caffeine's eviction listener
      return null;
    });
  }

  /** The keys of the entries DRAM holds live (an expired entry not yet swept is left out), weakly consistent. */
  Iterator<ByteKey> liveKeys() {
    return map.entrySet().stream().filter(e -> !e.getValue().expiredNow()).map(Map.Entry::getKey).iterator();
  }

  /** The deadlines tracked (tests). */
  int deadlinesTracked() {
    return expiry.tracked();
  }

  public long entries() {
    return cache.estimatedSize();
  }

  /** What an entry of these lengths weighs in the DRAM budget. */
  public static int weigh(int keyLength, int valueLength) {
    return (int) Math.min(Integer.MAX_VALUE, (long) keyLength + valueLength + DramEntry.OVERHEAD_BYTES);
  }

  public long weightedBytes() {
    return cache.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
  }

  /**
   * Up to {@code n} keys, hottest first in Caffeine's retention order; an expired entry not yet swept is left out
   * and the next live one taken in its place. The walk (under Caffeine's eviction lock) visits at most
   * {@code n + }{@link #HOTTEST_SLACK} entries, so a tier full of expired, unswept entries is not walked whole for
   * a few keys: then fewer than {@code n} come back.
   */
  public List<ByteKey> hottest(int n) {
    long visits = (long) n + HOTTEST_SLACK;
    return cache.policy().eviction().map(e -> e.hottest(entries -> entries.limit(visits)
        .filter(en -> !en.getValue().expiredNow()).limit(n).map(Map.Entry::getKey).toList())).orElse(List.of());
  }

  /** Entries {@link #hottest} may visit beyond the {@code n} asked for, to pass over expired ones. */
  static final int HOTTEST_SLACK = 1024;

  /** The byte budget. */
  public long maximumBytes() {
    return cache.policy().eviction().map(e -> e.getMaximum()).orElse(0L);
  }

  /** Changes the byte budget; shrinking evicts on this thread. */
  public void setMaximumBytes(long bytes) {
    cache.policy().eviction().ifPresent(e -> e.setMaximum(bytes));
  }

  /** Runs pending maintenance now: evictions, and every entry whose deadline has passed. */
  public void cleanUp() {
    cache.cleanUp();
    long now = System.currentTimeMillis();
    while (expiry.anyDue(now) && expiry.sweep(now, SWEEP_BATCH, this::expire) > 0) {
      // another batch
    }
    if (groups != null) {
      groups.sweepAll(); // the write orders' sweeps its evictions made due, to their end
    }
  }

  /**
   * Empties the tier, the deadlines first. A put racing the clear may leave an entry without its deadline (a
   * miss once expired, it leaves DRAM by size eviction, told as expired then) or a deadline without its entry
   * (dropped when it comes due); never a wrong value.
   */
  public void clear() {
    expiry.clear();
    if (groups == null) {
      cache.invalidateAll();
    } else {
      groups.clear();
    }
  }
}
