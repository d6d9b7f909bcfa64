package io.hybridcache.bench.ycsb;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import site.ycsb.ByteIterator;
import site.ycsb.Status;

/**
 * What the YCSB bindings share around each operation: a count of operations that failed with an
 * exception (the first few printed with their stack trace under {@code name}, then a count every
 * 10000), and the conversion of YCSB's field values to bytes. Thread-safe (an atomic counter).
 */
public final class BindingErrors {
  private final String name;
  private final AtomicLong count = new AtomicLong();

  public BindingErrors(String name) {
    this.name = name;
  }

  /** Counts and reports a failed operation; returns {@link Status#ERROR}. */
  public Status report(String op, String key, RuntimeException e) {
    long n = count.incrementAndGet();
    if (n <= 3) {
      System.err.println(name + ": " + op + " " + key + " failed: " + e);
      e.printStackTrace();
    } else if (n % 10_000 == 0) {
      System.err.println(name + ": " + n + " operations failed so far");
    }
    return Status.ERROR;
  }

  public long count() {
    return count.get();
  }

  public void reset() {
    count.set(0);
  }

  /** YCSB's field values as bytes, in their order. */
  public static Map<String, byte[]> toBytes(Map<String, ByteIterator> values) {
    Map<String, byte[]> m = new LinkedHashMap<>(values.size() * 2);
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      m.put(e.getKey(), e.getValue().toArray());
    }
    return m;
  }
}
