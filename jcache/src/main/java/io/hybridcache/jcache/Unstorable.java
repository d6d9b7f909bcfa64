package io.hybridcache.jcache;

/**
 * A key or value the serialization filter would refuse to read back (a class it refuses, a graph over one of its
 * limits): thrown while it is written ({@link CheckingOutputStream}), so nothing that would not decode is
 * stored. A put fails with it, naming the class and the pattern or limit; a read of such a key is a miss
 * ({@link ValueStore}).
 */
final class Unstorable extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  Unstorable(String rootClass, String refusal) {
    super("cannot store a " + rootClass + ": it would not read back: " + refusal);
  }
}
