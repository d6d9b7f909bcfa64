package io.hybridcache.jcache;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The values of one cache that did not decode: each counted ({@link Statistics#getUndecodableValues()}),
 * the first of each class WARNed (then DEBUG), as Ehcache's resilience strategy does. Thread-safe.
 */
final class Undecodables {
  /** At most this many classes are remembered as WARNed; past it every one is logged at DEBUG only. */
  static final int MAX_CLASSES = 1024;
  private static final Logger LOG = LoggerFactory.getLogger(Undecodables.class);

  private final String cacheName;
  private final Statistics stats;
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  Undecodables(String cacheName, Statistics stats) {
    this.cacheName = cacheName;
    this.stats = stats;
  }

  void found(Undecodable e) {
    if (!e.firstReport()) {
      return;
    }
    stats.undecodable();
    if (warned.size() < MAX_CLASSES && warned.add(e.className())) {
      LOG.warn("cache {}: a stored value of class {} does not decode ({}); it is read as a miss and removed."
          + " Further ones of this class are counted (UndecodableValues of the cache's statistics) and not logged;"
          + " to drop the old entries at once clear the cache or change cache-version", cacheName, e.className(),
          e.getMessage(), e);
    } else {
      LOG.debug("cache {}: a stored value of class {} does not decode ({})", cacheName, e.className(), e.getMessage());
    }
  }
}
