package io.hybridcache.jcache;

import java.util.ArrayDeque;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The key locks each thread holds while an entry processor runs ({@code invoke}), across every cache of the JVM,
 * so that nested invokes cannot deadlock. Thread-confined state (a thread local); the locks are the caches'
 * {@link KeyLocks}.
 *
 * <p>Design note. A processor runs under its key's lock, so it runs once and its key changes atomically. When
 * it calls another operation (another cache's {@code invoke}, say) whose key lock is not free, that operation
 * lets go of the processor locks its thread holds before it waits ({@link #lock}), and takes them back after
 * its own unlock ({@link #unlock}); the processor's frame is marked {@link Frame#released}. Two threads each
 * inside a processor that call into each other's key therefore never wait for each other while holding a
 * lock: the classic lock-order deadlock cannot form. A processor whose lock was let go does not commit
 * blindly: the invoke reads the clock again, compares its key's entry with the one the processor saw and, if
 * another thread changed it or it expired meanwhile, runs the processor again on the new entry at the new time (so
 * a processor that nests into a contended key may run more than once; its own entry's changes are still applied
 * exactly once, their expiry counted from after the wait). A lock is waited for only
 * while the thread holds no processor lock, and taken back by trying all of them and waiting with none held,
 * so no wait here is part of a cycle. Multi-key operations (putAll, removeAll(keys)) without a
 * writer lock one key at a time, as single-key operations do; with a writer, called from a processor, they keep
 * their locks in stripe order and do not let the processor's go.
 */
final class ProcessorLocks {
  /** One running processor's lock; {@link #released} if a nested operation let it go meanwhile. */
  static final class Frame {
    final ReentrantLock lock;
    boolean released;

    Frame(ReentrantLock lock) {
      this.lock = lock;
    }
  }

  private static final ThreadLocal<ArrayDeque<Frame>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

  private ProcessorLocks() {}

  /**
   * Takes {@code lock} for one key operation; if it is not free and the thread holds processor locks, lets
   * them go first. Returns whether it did (pass it to {@link #unlock}).
   */
  static boolean lock(ReentrantLock lock) {
    if (lock.tryLock()) {
      return false; // free (or this thread's already): no wait, so nothing to let go
    }
    ArrayDeque<Frame> held = HELD.get();
    if (held.isEmpty()) {
      lock.lock();
      return false;
    }
    for (Frame f : held) {
      f.lock.unlock();
      f.released = true;
    }
    lock.lock();
    return true;
  }

  /** Releases {@code lock}, then takes back the processor locks {@link #lock} let go. */
  static void unlock(ReentrantLock lock, boolean releasedHeld) {
    lock.unlock();
    if (releasedHeld) {
      relock(HELD.get());
    }
  }

  /** Takes every lock of {@code held} back: all by tryLock, or none held while waiting for the one that is busy. */
  private static void relock(ArrayDeque<Frame> held) {
    Frame[] frames = held.toArray(new Frame[0]);
    while (true) {
      int taken = 0;
      while (taken < frames.length && frames[taken].lock.tryLock()) {
        taken++;
      }
      if (taken == frames.length) {
        return;
      }
      for (int i = taken - 1; i >= 0; i--) {
        frames[i].lock.unlock();
      }
      frames[taken].lock.lock(); // wait for it with nothing held, then try them all again
      frames[taken].lock.unlock();
    }
  }

  /** Marks the start of a processor run under {@code lock} (held by the caller). */
  static Frame enter(ReentrantLock lock) {
    Frame f = new Frame(lock);
    HELD.get().push(f);
    return f;
  }

  /** Marks the end of the processor run of {@code f} (its lock still held by the caller). */
  static void exit(Frame f) {
    HELD.get().remove(f);
  }
}
