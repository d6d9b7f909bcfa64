package io.hybridcache.core.engine;

import io.hybridcache.core.api.LifetimeClass;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The lifetime classes a cache knows, by id. Thread-safe: a concurrent map; classes are immutable.
 * A class id read back from the device that nobody registered yet resolves to a placeholder named
 * {@code class-<id>}, so recovery never fails on a class a previous run defined.
 */
final class LifetimeClasses {
  private final ConcurrentMap<Integer, LifetimeClass> byId = new ConcurrentHashMap<>();

  public LifetimeClasses() {
    register(LifetimeClass.FRESH);
    register(LifetimeClass.SURVIVOR);
    register(LifetimeClass.CATALOG);
  }

  public LifetimeClass register(LifetimeClass c) {
    LifetimeClass prev = byId.putIfAbsent(c.id(), c);
    if (prev != null && !prev.equals(c) && !prev.name().equals("class-" + c.id())) {
      throw new IllegalArgumentException("lifetime class id " + c.id() + " already names " + prev.name());
    }
    if (prev != null && !prev.equals(c)) {
      byId.put(c.id(), c);
    }
    return c;
  }

  public LifetimeClass byId(int id) {
    return byId.computeIfAbsent(id, i -> new LifetimeClass(i, "class-" + i));
  }

  public Collection<LifetimeClass> all() {
    return byId.values();
  }
}
