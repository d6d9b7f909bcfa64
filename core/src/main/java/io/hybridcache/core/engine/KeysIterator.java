package io.hybridcache.core.engine;

import java.lang.ref.WeakReference;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The iterator of {@link Engine#keys()}: DRAM keys (weakly consistent), then the flash keys (a
 * {@link FlashKeyScan}), then the keys promoted from flash to DRAM while it ran.
 *
 * <p>Why the third pass: a key may move from flash to DRAM after the DRAM pass went by (a flash hit
 * promotes it) and then leave flash before the flash pass reaches it (reclaim drops or moves the flash
 * copy). It was held throughout, so it must be returned. While the iterator is registered
 * ({@link Promotions#register}), every promotion records its key here; the keys recorded are returned
 * at the end, except those the DRAM pass returned (one the flash pass returned may come twice).
 *
 * <p>Not thread-safe: one caller iterates; promotions are recorded from any thread (a concurrent set).
 * An iterator abandoned before its end stops recording once it is garbage (a weak registration).
 */
final class KeysIterator implements Iterator<byte[]> {

  /** The iterators currently recording promotions. Thread-safe; empty almost always. */
  static final class Promotions {
    private final List<WeakReference<KeysIterator>> active = new java.util.concurrent.CopyOnWriteArrayList<>();

    void register(KeysIterator it) {
      active.add(new WeakReference<>(it));
    }

    void unregister(KeysIterator it) {
      active.removeIf(r -> r.get() == null || r.get() == it);
    }

    /** A flash hit was promoted to DRAM under {@code key}. */
    void promoted(ByteKey key) {
      if (active.isEmpty()) {
        return;
      }
      for (WeakReference<KeysIterator> r : active) {
        KeysIterator it = r.get();
        if (it == null) {
          active.remove(r);
        } else {
          it.promoted.add(key);
        }
      }
    }
  }

  private final Iterator<ByteKey> fromDram;
  private final Supplier<Iterator<byte[]>> flashKeys;
  private final Promotions promotions;
  private final Set<Long> seen = new HashSet<>(); // hashes the DRAM pass returned
  private final Set<ByteKey> promoted = ConcurrentHashMap.newKeySet();
  private Iterator<byte[]> fromFlash;
  private Iterator<ByteKey> fromPromoted;
  private byte[] next;

  KeysIterator(Iterator<ByteKey> fromDram, Supplier<Iterator<byte[]>> flashKeys, Promotions promotions) {
    this.fromDram = fromDram;
    this.flashKeys = flashKeys;
    this.promotions = promotions;
    promotions.register(this); // before the DRAM pass: a promotion earlier is seen by that pass
  }

  @Override
  public boolean hasNext() {
    while (next == null) {
      if (fromDram.hasNext()) {
        ByteKey k = fromDram.next();
        seen.add(k.hash64());
        next = k.bytes().clone();
      } else if (fromPromoted == null) {
        if (fromFlash == null) {
          fromFlash = flashKeys.get();
        }
        if (fromFlash.hasNext()) {
          byte[] k = fromFlash.next();
          if (!seen.contains(new ByteKey(k).hash64())) {
            next = k;
          }
        } else {
          promotions.unregister(this);
          fromPromoted = List.copyOf(promoted).iterator();
        }
      } else if (fromPromoted.hasNext()) {
        ByteKey k = fromPromoted.next();
        if (!seen.contains(k.hash64())) {
          next = k.bytes().clone();
        }
      } else {
        return false;
      }
    }
    return true;
  }

  @Override
  public byte[] next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    byte[] k = next;
    next = null;
    return k;
  }
}
