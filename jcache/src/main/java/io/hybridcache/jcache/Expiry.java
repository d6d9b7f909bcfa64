package io.hybridcache.jcache;

import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;

/**
 * A cache's {@link ExpiryPolicy} turned into expiry times (epoch milliseconds). As the spec asks: a
 * creation duration the policy cannot give (it throws) is eternal; an update or access duration it
 * cannot give, or null, leaves the expiry as it was; {@code Duration.ZERO} expires at once. Thread-safe
 * if the policy is.
 */
final class Expiry {
  private final ExpiryPolicy policy;

  Expiry(ExpiryPolicy policy) {
    this.policy = policy;
  }

  /** True if no entry ever expires (the default policy): a put need not read the entry it replaces. */
  boolean eternal() {
    return policy instanceof javax.cache.expiry.EternalExpiryPolicy;
  }

  /**
   * False if no access ever moves an entry's expiry time: the standard policies without an access duration
   * (their own classes, not subclasses, which may override it); true for any other, which may.
   */
  boolean mayExtendOnAccess() {
    Class<?> c = policy.getClass();
    return c != javax.cache.expiry.EternalExpiryPolicy.class && c != javax.cache.expiry.CreatedExpiryPolicy.class
        && c != javax.cache.expiry.ModifiedExpiryPolicy.class;
  }

  ExpiryPolicy policy() {
    return policy;
  }

  long onCreation(long now) {
    Duration d;
    try {
      d = policy.getExpiryForCreation();
    } catch (RuntimeException e) {
      d = Duration.ETERNAL;
    }
    return at(d == null ? Duration.ETERNAL : d, now);
  }

  long onUpdate(long now, long current) {
    try {
      Duration d = policy.getExpiryForUpdate();
      return d == null ? current : at(d, now);
    } catch (RuntimeException e) {
      return current;
    }
  }

  /** The new expiry after an access, or {@code current} (also when the policy keeps it: no rewrite). */
  long onAccess(long now, long current) {
    try {
      Duration d = policy.getExpiryForAccess();
      return d == null ? current : at(d, now);
    } catch (RuntimeException e) {
      return current;
    }
  }

  private static long at(Duration d, long now) {
    if (d.isEternal()) {
      return Stored.ETERNAL;
    }
    if (d.isZero()) {
      return now;
    }
    long ms = d.getTimeUnit().toMillis(d.getDurationAmount());
    long at = now + ms;
    return at < now ? Stored.ETERNAL - 1 : Math.min(at, Stored.ETERNAL - 1);
  }
}
