package io.hybridcache.jcache;

import java.lang.management.ManagementFactory;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Registers a cache's MXBeans on the platform MBean server under the names the spec gives:
 * {@code javax.cache:type=CacheStatistics|CacheConfiguration,CacheManager=URI,Cache=NAME} (',', ':', '='
 * and newlines in the URI and name become '.'). Stateless.
 */
final class MBeans {
  enum Kind { CacheStatistics, CacheConfiguration }

  private MBeans() {}

  static void register(Cache<?, ?> cache, Kind kind, Object bean) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName name = name(cache, kind);
    try {
      if (!server.isRegistered(name)) {
        server.registerMBean(bean, name);
      }
    } catch (javax.management.InstanceAlreadyExistsException e) {
      // registered by a racing call: the same name, the same cache
    } catch (javax.management.JMException e) {
      throw new CacheException("cannot register " + name, e);
    }
  }

  static void unregister(Cache<?, ?> cache, Kind kind) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName name = name(cache, kind);
    try {
      server.unregisterMBean(name);
    } catch (InstanceNotFoundException e) {
      // not registered
    } catch (javax.management.JMException e) {
      throw new CacheException("cannot unregister " + name, e);
    }
  }

  static ObjectName name(Cache<?, ?> cache, Kind kind) {
    String manager = safe(cache.getCacheManager().getURI().toString());
    try {
      return new ObjectName("javax.cache:type=" + kind + ",CacheManager=" + manager + ",Cache=" + safe(cache.getName()));
    } catch (MalformedObjectNameException e) {
      throw new CacheException("no MBean name for cache " + cache.getName(), e);
    }
  }

  private static String safe(String s) {
    return s == null ? "" : s.replaceAll(",|:|=|\n", ".");
  }
}
