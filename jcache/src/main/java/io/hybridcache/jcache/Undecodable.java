package io.hybridcache.jcache;

/**
 * A stored value that does not decode: {@link #className()} names the class that failed (the one the
 * serialization filter refused, that is missing or changed incompatibly; for another codec, that codec).
 * Thrown by a codec or a stored entry, and caught by the cache, which reads it as a miss ({@link EntryOps}):
 * it never reaches a caller of the cache. Counted once ({@link #firstReport()}).
 */
final class Undecodable extends IllegalStateException {
  private static final long serialVersionUID = 1L;
  private final String className;
  private transient boolean reported;

  Undecodable(String className, String message, Throwable cause) {
    super(message, cause);
    this.className = className;
  }

  /** {@code e} as an {@code Undecodable} of {@code codec}'s. */
  static Undecodable of(Object codec, RuntimeException e) {
    return e instanceof Undecodable u ? u : new Undecodable(codec.getClass().getName(),
        "codec " + codec.getClass().getName() + " cannot decode it: " + e, e);
  }

  String className() {
    return className;
  }

  /** True the first time only: one value is counted and logged once, however often an operation reads it. */
  boolean firstReport() {
    boolean first = !reported;
    reported = true;
    return first;
  }
}
