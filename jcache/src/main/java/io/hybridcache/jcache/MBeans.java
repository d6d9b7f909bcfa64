package io.hybridcache.jcache;

import java.lang.management.ManagementFactory;
import java.util.EnumMap;
import java.util.Map;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Registers one cache's MXBeans on the platform MBean server under the names the spec gives:
 * {@code javax.cache:type=CacheStatistics|CacheConfiguration,CacheManager=URI,Cache=NAME} (',', ':', '='
 * and newlines in the URI and name become '.'). Two managers of one URI (different class loaders) may each
 * have a cache of one name: the first registered gets the spec's name, each other one the same name with
 * {@code ,instance=N} added (the lowest N from 2 that is free), so no cache's bean hides or unregisters
 * another's. Each cache unregisters only the names it registered. Thread-safe (synchronized).
 */
final class MBeans {
  enum Kind { CacheStatistics, CacheConfiguration }

  private final Cache<?, ?> cache;
  private final Map<Kind, ObjectName> registered = new EnumMap<>(Kind.class);
  /** The manager's record of its caches' names ({@link ManagerResources#mbeanNames}): a dropped manager's go too. */
  private final java.util.Set<ObjectName> managerNames;

  MBeans(Cache<?, ?> cache, java.util.Set<ObjectName> managerNames) {
    this.cache = cache;
    this.managerNames = managerNames;
  }

  synchronized void register(Kind kind, Object bean) {
    if (registered.containsKey(kind)) {
      return;
    }
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName spec = name(cache, kind);
    for (int instance = 1; ; instance++) {
      ObjectName n = instance == 1 ? spec : withInstance(spec, instance);
      try {
        server.registerMBean(bean, n);
        registered.put(kind, n);
        managerNames.add(n);
        return;
      } catch (InstanceAlreadyExistsException e) {
        // another manager's cache of this URI and name: try the next instance
      } catch (JMException e) {
        throw new CacheException("cannot register " + n, e);
      }
    }
  }

  synchronized void unregister(Kind kind) {
    ObjectName n = registered.remove(kind);
    if (n == null) {
      return;
    }
    managerNames.remove(n);
    try {
      ManagementFactory.getPlatformMBeanServer().unregisterMBean(n);
    } catch (InstanceNotFoundException e) {
      // unregistered by someone else
    } catch (JMException e) {
      throw new CacheException("cannot unregister " + n, e);
    }
  }

  /** Unregisters {@code names} (a manager's caches' beans left registered), quietly: the manager's close. */
  static void unregisterAll(java.util.Collection<ObjectName> names) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (ObjectName n : names) {
      try {
        server.unregisterMBean(n);
      } catch (JMException e) {
        // gone already, or the server refuses: nothing of the manager's to keep
      }
    }
  }

  /** The spec's name of {@code cache}'s bean of {@code kind}. */
  static ObjectName name(Cache<?, ?> cache, Kind kind) {
    String manager = safe(cache.getCacheManager().getURI().toString());
    try {
      return new ObjectName("javax.cache:type=" + kind + ",CacheManager=" + manager + ",Cache=" + safe(cache.getName()));
    } catch (MalformedObjectNameException e) {
      throw new CacheException("no MBean name for cache " + cache.getName(), e);
    }
  }

  private static ObjectName withInstance(ObjectName spec, int instance) {
    try {
      return new ObjectName(spec.getDomain() + ":" + spec.getKeyPropertyListString() + ",instance=" + instance);
    } catch (MalformedObjectNameException e) {
      throw new CacheException("no MBean name for " + spec, e);
    }
  }

  private static String safe(String s) {
    return s == null ? "" : s.replaceAll(",|:|=|\n", ".");
  }
}
