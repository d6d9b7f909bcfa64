package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The write buffers of every lifetime class of one {@link SegmentWriter}: made when first needed, at most
 * {@code max} of them, and recycled, so the write path's direct memory is at most {@code max} x
 * (bufferBytes + 4 KiB) however many classes write (issue 25, item 12: each class that ever wrote kept
 * its own buffers for ever, and the Mongo bridge makes a class per collection).
 *
 * <p>Thread-safe. Concurrency: the writer takes buffers under its own lock, the flusher thread gives them
 * back; both under this pool's {@code lock} (held for a queue operation, never while waiting for anything
 * else; it nests inside the writer's lock, never the reverse). Readers find unflushed entries by scanning
 * {@link #all}, a copy-on-write array of every buffer made: each buffer names the segment and range it
 * holds ({@link WriteBuffer#tryCopy}), so a buffer a reader finds recycled under it reads as absent.
 */
final class WriteBufferPool {
  private final int bufferBytes;
  private final int max;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition returned = lock.newCondition();
  private final ArrayDeque<WriteBuffer> free = new ArrayDeque<>(); // under lock
  private long returns; // under lock: buffers given back so far
  private volatile WriteBuffer[] all = new WriteBuffer[0]; // written under lock

  WriteBufferPool(int bufferBytes, int max) {
    if (max < 2) {
      throw new IllegalArgumentException("write buffers in all must be >= 2, was " + max);
    }
    this.bufferBytes = bufferBytes;
    this.max = max;
  }

  /**
   * The most direct memory {@code max} buffers of {@code bufferBytes} hold, with their alignment slack.
   */
  static long boundBytes(int max, int bufferBytes) {
    return (long) max * (Device.roundUp(bufferBytes) + Device.ALIGNMENT);
  }

  /**
   * A free buffer, or a new one while fewer than {@code max} exist; null if all are in use.
   *
   * @throws OutOfMemoryError if the JVM has no direct memory for a new one (nothing changes)
   */
  WriteBuffer poll() {
    lock.lock();
    try {
      WriteBuffer b = free.poll();
      if (b == null && all.length < max) {
        b = new WriteBuffer(bufferBytes);
        WriteBuffer[] grown = Arrays.copyOf(all, all.length + 1);
        grown[grown.length - 1] = b;
        all = grown;
      }
      return b;
    } finally {
      lock.unlock();
    }
  }

  /** Gives back a buffer taken with {@link #poll}, waking waiters (the flusher thread, or the writer). */
  void release(WriteBuffer b) {
    lock.lock();
    try {
      free.add(b);
      returns++;
      returned.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Buffers given back so far: pass it to {@link #awaitReturn} to wait for the next one. */
  long returns() {
    lock.lock();
    try {
      return returns;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until a buffer was given back after {@code seen} ({@link #returns}) or the deadline
   * ({@link Long#MAX_VALUE}: none); false on the deadline or an interrupt (the flag kept).
   */
  boolean awaitReturn(long seen, long deadlineNanos) {
    lock.lock();
    try {
      while (returns == seen) {
        if (deadlineNanos == Long.MAX_VALUE) {
          returned.await();
        } else {
          long left = deadlineNanos - System.nanoTime();
          if (left <= 0) {
            return false;
          }
          returned.awaitNanos(left);
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** Every buffer made so far, in use or free (readers look for unflushed entries in them). */
  WriteBuffer[] all() {
    return all;
  }

  /** Direct memory held by the buffers made so far, with their alignment slack. */
  long retainedBytes() {
    return boundBytes(all.length, bufferBytes);
  }
}
