package io.hybridcache.jcache;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

/**
 * The read-through loads of one cache under a per-key single flight: the first miss of a key calls the loader
 * (with no lock held), later misses of that key wait for its result instead of calling it again. Thread-safe.
 *
 * <p>Design note (why a follower never gets a value older than the last completed put or remove): the leader
 * stores its result and {@link #leave leaves} the flight in one step under the key's lock; every put and
 * remove of the key takes that lock. A follower joins only while the flight is registered, so before that
 * step; any write that completed before the follower joined came before the step, and the leader, which
 * looks at the entry under the lock, returns that write's value (or stores after a remove). The follower's
 * call spans the step, so the step is its linearization point.
 *
 * <p>A loader that reads the key it is loading, on its own thread, would wait for its own flight for ever: such a
 * read fails at once instead ({@link Flight#ledBy}: an {@code IllegalStateException} naming the recursive load, as
 * core's {@code SingleFlight} and Caffeine fail), and so does the outer load.
 */
final class Loads {
  private final ConcurrentHashMap<Object, Flight> flights = new ConcurrentHashMap<>();

  /** One load of one key: its leader runs it, the followers {@link #await} it. */
  static final class Flight {
    private final CompletableFuture<Object> result = new CompletableFuture<>();
    private final Thread leader = Thread.currentThread();

    /** Whether {@code t} leads it (a read of the key by its own loader: waiting would never end). */
    boolean ledBy(Thread t) {
      return leader == t;
    }

    void complete(Object value) {
      result.complete(value);
    }

    void fail(Throwable t) {
      result.completeExceptionally(t);
    }

    /** The leader's result, or its failure rethrown (the same exception: a CacheLoaderException, an Error). */
    @SuppressWarnings("unchecked")
    <V> V await() {
      boolean interrupted = false;
      try {
        while (true) {
          try {
            return (V) result.get();
          } catch (InterruptedException e) {
            interrupted = true; // a get is not interruptible; the flag is kept
          } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
              throw r;
            }
            if (cause instanceof Error err) {
              throw err;
            }
            throw new IllegalStateException(cause);
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** A flight joined: led by the caller (it loads), or in progress (the caller awaits it). */
  record Joined(Flight flight, boolean leader) {}

  /** The flight of {@code id}: a new one led by the caller, or the one in progress. */
  Joined join(Object id) {
    Flight mine = new Flight();
    Flight running = flights.putIfAbsent(id, mine);
    return running == null ? new Joined(mine, true) : new Joined(running, false);
  }

  /** Ends the leader's flight: later misses start a new one. Called under the key's lock when it stores. */
  void leave(Object id, Flight f) {
    flights.remove(id, f);
  }
}
